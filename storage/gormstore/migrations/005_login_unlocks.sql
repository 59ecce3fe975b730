-- 005_login_unlocks: operators' lifts of sign-in lockouts (`proctor members unlock`).
--
-- account_key is consent.AccountDigest of the e-mail (a truncated SHA-256, never the address).
-- A lockout lives in the login rate limiter (process memory or Redis), which a CLI cannot reach;
-- every server reads this row before charging an attempt and counts under a fresh key after it,
-- so an unlock takes effect at every replica whatever the limiter. Not school-scoped: members
-- and their budgets are per deployment.

CREATE TABLE login_unlocks (
    account_key  TEXT PRIMARY KEY,
    unlocked_at  TIMESTAMPTZ NOT NULL
);
