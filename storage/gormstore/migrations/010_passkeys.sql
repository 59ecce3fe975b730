-- 010_passkeys: members' passkeys (WebAuthn credentials) and the challenges of ceremonies in
-- progress.
--
-- A passkey belongs to a member at one school: its relying party is the school's host. The
-- credential id is unique per school (the same authenticator may hold credentials of several
-- schools, each under its own id, and a school must never find another's). sign_count only
-- moves forward, by the conditional UPDATE that records a use.

CREATE TABLE member_passkeys (
    id                  BIGSERIAL PRIMARY KEY,
    school_id           BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    member_id           BIGINT NOT NULL REFERENCES members (id) ON DELETE CASCADE,
    credential_id       BYTEA NOT NULL,
    public_key          BYTEA NOT NULL,
    attestation_format  TEXT NOT NULL DEFAULT '',
    sign_count          BIGINT NOT NULL DEFAULT 0,
    aaguid              BYTEA,
    transports          TEXT NOT NULL DEFAULT '',
    backup_eligible     BOOLEAN NOT NULL DEFAULT FALSE,
    backup_state        BOOLEAN NOT NULL DEFAULT FALSE,
    name                TEXT NOT NULL DEFAULT '',
    created_at          TIMESTAMPTZ NOT NULL,
    last_used_at        TIMESTAMPTZ,
    UNIQUE (school_id, credential_id)
);
-- A member's passkeys at a school (the account page, the second sign-in step, counts).
CREATE INDEX member_passkeys_member_idx ON member_passkeys (school_id, member_id);

-- passkey_challenges are ceremonies in progress, shared by every replica. The browser holds a
-- random value in a short-lived cookie; id is its keyed hash. A challenge is consumed (deleted)
-- by the one statement that reads it, so it answers once; the purge job deletes expired ones.
CREATE TABLE passkey_challenges (
    id          TEXT PRIMARY KEY,
    school_id   BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    purpose     TEXT NOT NULL,
    member_id   BIGINT REFERENCES members (id) ON DELETE CASCADE,
    session     TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    expires_at  TIMESTAMPTZ NOT NULL
);
CREATE INDEX passkey_challenges_expiry_idx ON passkey_challenges (expires_at);
