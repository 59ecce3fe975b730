-- 008_security_events: the security event log (package audit), one table for every school.
--
-- An event says what happened (kind, result), when, who did it (actor, actor_id), to whom
-- (subject_id), with which client and scopes, and from where (client_addr, user_agent,
-- request_id). actor_id and subject_id name members but are not foreign keys: the log outlives a
-- removed member, and an operator must still be able to read what that member did. scopes is
-- space-separated, like an OAuth scope parameter. detail is a short plain note, never a secret.
CREATE TABLE security_events (
    id           BIGSERIAL PRIMARY KEY,
    school_id    BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    kind         TEXT NOT NULL,
    result       TEXT NOT NULL,
    at           TIMESTAMPTZ NOT NULL,
    actor        TEXT NOT NULL,
    actor_id     BIGINT,
    subject_id   BIGINT,
    client_id    TEXT NOT NULL DEFAULT '',
    scopes       TEXT NOT NULL DEFAULT '',
    client_addr  TEXT NOT NULL DEFAULT '',
    user_agent   TEXT NOT NULL DEFAULT '',
    request_id   TEXT NOT NULL DEFAULT '',
    detail       TEXT NOT NULL DEFAULT ''
);
-- The admin page and the CLI page a school's events newest first.
CREATE INDEX security_events_school_idx ON security_events (school_id, id DESC);
-- A member's events: as the one acted upon, and as the one who acted.
CREATE INDEX security_events_subject_idx ON security_events (school_id, subject_id);
CREATE INDEX security_events_actor_idx ON security_events (school_id, actor_id);
-- The purge job finds old events by this one.
CREATE INDEX security_events_at_idx ON security_events (at);

-- The members' own events (migration 007) become entries of the log, oldest first so that ids
-- keep their order. Each was the member acting on their own account; a removed application's
-- access is a grant the member revoked (detail keeps the client's name).
INSERT INTO security_events (school_id, kind, result, at, actor, actor_id, subject_id, client_addr, user_agent, detail)
SELECT school_id,
       CASE kind
           WHEN 'signed_in' THEN 'sign_in'
           WHEN 'password_reset' THEN 'password_reset_completed'
           WHEN 'app_removed' THEN 'grant_revoked'
           ELSE kind
       END,
       'success', at, 'member', member_id, member_id, client_addr, user_agent, detail
FROM member_events
ORDER BY id;

DROP TABLE member_events;
