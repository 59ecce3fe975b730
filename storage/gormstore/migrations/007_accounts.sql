-- 007_accounts: one-time links, members' security events, and where a sign-in came from.
--
-- account_links are invitation, password-reset and e-mail-change links. The e-mail carries a
-- random token; id is its keyed hash, so a copy of the database holds nothing a browser could
-- present. A link belongs to one school. used_at is set once, by the statement that consumes it.

CREATE TABLE account_links (
    id              TEXT PRIMARY KEY,
    school_id       BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    member_id       BIGINT NOT NULL REFERENCES members (id) ON DELETE CASCADE,
    purpose         TEXT NOT NULL,
    email           TEXT NOT NULL,
    password_stamp  TEXT NOT NULL DEFAULT '',
    created_at      TIMESTAMPTZ NOT NULL,
    expires_at      TIMESTAMPTZ NOT NULL,
    used_at         TIMESTAMPTZ
);
-- A new link replaces the member's earlier ones of its purpose (at one school, or at every
-- school when a password is set): both deletes find them by this one.
CREATE INDEX account_links_member_idx ON account_links (member_id, purpose, school_id);
-- The purge job finds expired links by this one.
CREATE INDEX account_links_expiry_idx ON account_links (expires_at);

-- member_events are a member's security events at a school (signed in, password changed, app
-- removed ...), shown on their account page. detail is a short plain note, never a secret.
CREATE TABLE member_events (
    id           BIGSERIAL PRIMARY KEY,
    school_id    BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    member_id    BIGINT NOT NULL REFERENCES members (id) ON DELETE CASCADE,
    kind         TEXT NOT NULL,
    at           TIMESTAMPTZ NOT NULL,
    client_addr  TEXT NOT NULL DEFAULT '',
    user_agent   TEXT NOT NULL DEFAULT '',
    detail       TEXT NOT NULL DEFAULT ''
);
-- The account page lists a member's latest events at a school.
CREATE INDEX member_events_member_idx ON member_events (school_id, member_id, at DESC);
-- The purge job finds old events by this one.
CREATE INDEX member_events_at_idx ON member_events (at);

-- A session remembers the browser and address it was started from, so that the account page
-- can tell a member's sessions apart.
ALTER TABLE login_sessions ADD COLUMN user_agent TEXT NOT NULL DEFAULT '';
ALTER TABLE login_sessions ADD COLUMN client_addr TEXT NOT NULL DEFAULT '';
