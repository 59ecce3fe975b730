-- 009_factors: members' second factors at a school, and how a session was signed in.
--
-- member_totp holds one TOTP secret per member and school, sealed with AES-GCM under a key
-- derived from the system secret: the table alone does not let anyone compute a code. It is
-- pending while confirmed_at is NULL. last_step is the last accepted RFC 6238 time step, moved
-- forward by a compare-and-set so that no code is accepted twice.

CREATE TABLE member_totp (
    school_id     BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    member_id     BIGINT NOT NULL REFERENCES members (id) ON DELETE CASCADE,
    secret        BYTEA NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL,
    confirmed_at  TIMESTAMPTZ,
    last_step     BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (school_id, member_id)
);

-- member_recovery_codes are single-use recovery codes: only their keyed hashes. used_at is set
-- once, by the statement that consumes a code.
CREATE TABLE member_recovery_codes (
    school_id   BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    member_id   BIGINT NOT NULL REFERENCES members (id) ON DELETE CASCADE,
    code_hash   TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    used_at     TIMESTAMPTZ,
    PRIMARY KEY (school_id, member_id, code_hash)
);

-- A session remembers how the member signed in (RFC 8176 values, space-separated) and when a
-- second factor was last entered in it, for ID tokens' amr and for step-up.
ALTER TABLE login_sessions ADD COLUMN amr TEXT NOT NULL DEFAULT '';
ALTER TABLE login_sessions ADD COLUMN factor_at TIMESTAMPTZ;
