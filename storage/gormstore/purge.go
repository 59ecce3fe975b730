package gormstore

import (
	"context"
	"fmt"
	"time"
)

// purgeTargets are the tables PurgeExpired empties of expired rows: each names its key and the
// condition that says a row has expired, with one placeholder per parameter `before`.
//
// A token pair lives until its refresh token expires (or its access token, for a pair without a
// refresh token): until then a replay of its refresh token must still be recognised, revoked or
// not. The second condition keeps a pair whose access token outlives its refresh token (not a
// configuration Proctor uses, but cheap to honour) until that token expires too. Deleting a pair
// that another names as the one it replaced sets that reference to NULL (ON DELETE SET NULL),
// which only costs RetireReplaced a revocation of a pair that no longer exists.
//
// Times compare correctly in SQL on both databases: SQLite keeps them as text, but every time is
// written in UTC in one format whose text order is time order (dbTime).
//
// A one-time link goes once it has expired, used or not: a used link is kept only so that its
// token keeps failing as used until it would have failed as expired anyway. Mail outbox entries
// are kept mailKeep after they were sent or given up on, for operators who ask what became of a
// message (their payload is already erased). A passkey ceremony's challenge goes once it has
// expired (a used one is deleted by its use). The security event log is not here: its retention
// is a server setting, so the server purges it on its own (PurgeSecurityEvents).
var purgeTargets = []struct {
	table, key, expired string
	params              int
	keep                time.Duration // subtracted from `before`
}{
	{"oauth_authorization_codes", "signature", "expires_at < ?", 1, 0},
	{"oauth_pkce_sessions", "signature", "expires_at < ?", 1, 0},
	{"oauth_oidc_sessions", "signature", "expires_at < ?", 1, 0},
	{"login_sessions", "id", "expires_at < ?", 1, 0},
	{"oauth_token_pairs", "id", "COALESCE(refresh_expires_at, access_expires_at) < ? AND access_expires_at < ?", 2, 0},
	{"account_links", "id", "expires_at < ?", 1, 0},
	{"mail_outbox", "id", "finished_at < ? AND state IN ('sent', 'failed')", 1, mailKeep},
	{"passkey_challenges", "id", "expires_at < ?", 1, 0},
}

// mailKeep is how long a sent or failed mail outbox entry stays.
const mailKeep = 30 * 24 * time.Hour

// PurgeExpired deletes, across every school, at most batch expired rows of each kind and returns
// how many it deleted. It is the background job, so it is deliberately not school-scoped. Each
// DELETE is a statement of its own, outside any transaction, so that no lock is held longer than
// one bounded batch. The IN (SELECT ... LIMIT) form bounds the batch on both databases:
// PostgreSQL has no DELETE ... LIMIT, and SQLite has it only when compiled with it.
func (s *Store) PurgeExpired(ctx context.Context, before time.Time, batch int) (int, error) {
	if batch <= 0 {
		return 0, invalidArg("purge expired rows", "batch %d is not positive", batch)
	}
	before = dbTime(before)
	db := s.conn(ctx)
	total := 0
	for _, t := range purgeTargets {
		args := make([]any, 0, t.params+1)
		for range t.params {
			args = append(args, before.Add(-t.keep))
		}
		args = append(args, batch)
		q := fmt.Sprintf("DELETE FROM %[1]s WHERE %[2]s IN (SELECT %[2]s FROM %[1]s WHERE %[3]s LIMIT ?)", t.table, t.key, t.expired)
		res := db.Exec(q, args...)
		if res.Error != nil {
			return total, wrap("purge expired "+t.table, res.Error)
		}
		total += int(res.RowsAffected)
	}
	return total, nil
}
