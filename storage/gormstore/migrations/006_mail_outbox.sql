-- 006_mail_outbox: the outbox of e-mail (package mail; storage/gormstore/mail_outbox.go).
--
-- A message is written here in the transaction of the event that causes it and sent later by a
-- worker, so that an invitation and its e-mail commit together. payload is sealed by package mail
-- (AES-GCM under a key derived from the system secret: links carry one-time tokens) and set to
-- NULL once the entry is sent or failed. Not a foreign key to schools: one worker serves every
-- school, and entries outlive nothing but their 30 days after delivery (PurgeExpired).
--
-- next_attempt_at is when the entry is due: for a pending entry, its next attempt; for a claimed
-- (sending) one, the end of its lease, equal to lease_until, so that "due" is one condition on
-- one column for both and a worker that died leaves its entries due again when the lease ends.
-- finished_at is when an entry was sent or failed (the purge's clock).

CREATE TABLE mail_outbox (
    id               BIGSERIAL PRIMARY KEY,
    school_id        BIGINT NOT NULL,
    kind             TEXT NOT NULL,
    payload          BYTEA,
    state            TEXT NOT NULL CHECK (state IN ('pending', 'sending', 'sent', 'failed')),
    attempts         INTEGER NOT NULL DEFAULT 0,
    next_attempt_at  TIMESTAMPTZ NOT NULL,
    lease_until      TIMESTAMPTZ,
    last_error       TEXT NOT NULL DEFAULT '',
    created_at       TIMESTAMPTZ NOT NULL,
    sent_at          TIMESTAMPTZ,
    finished_at      TIMESTAMPTZ
);

-- Claiming reads the due entries in due order: only unfinished entries are in this index, so it
-- stays as small as the backlog however many delivered entries the table keeps.
CREATE INDEX mail_outbox_due_idx ON mail_outbox (next_attempt_at, id) WHERE state IN ('pending', 'sending');

-- The purge job deletes finished entries by age.
CREATE INDEX mail_outbox_finished_idx ON mail_outbox (finished_at) WHERE finished_at IS NOT NULL;
