-- 002_login_sessions: members' signed-in sessions at a school's host.
--
-- The session cookie holds a random token; id is its keyed hash, so a copy of the database does
-- not let anyone sign in. The session belongs to one school: the same member signed in at two
-- schools has two rows.

CREATE TABLE login_sessions (
    id            TEXT PRIMARY KEY,
    school_id     BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    member_id     BIGINT NOT NULL REFERENCES members (id) ON DELETE CASCADE,
    created_at    TIMESTAMPTZ NOT NULL,
    last_seen_at  TIMESTAMPTZ NOT NULL,
    expires_at    TIMESTAMPTZ NOT NULL
);
-- The purge job finds expired sessions by this one.
CREATE INDEX login_sessions_expiry_idx ON login_sessions (expires_at);
-- Signing a member out everywhere at a school (a password change, a removed role) finds theirs.
CREATE INDEX login_sessions_member_idx ON login_sessions (school_id, member_id);
