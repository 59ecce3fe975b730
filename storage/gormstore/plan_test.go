package gormstore

import (
	"strings"
	"testing"
)

// TestSQLitePlansUseTheGrantIndexes pins the query plans migration 004 was written for. SQLite
// plans without statistics unless ANALYZE ran, and with an index on request_id alone it chose
// the (school_id, client_id) index for a grant's pairs and walked every pair of the school on
// each revocation (docs/benchmarks.md). The statements are those the store sends (as gorm
// renders them for the revocation and the grant lock, and purge.go's condition).
func TestSQLitePlansUseTheGrantIndexes(t *testing.T) {
	s := newSQLiteStore(t)
	for _, tc := range []struct{ sql, index string }{
		{"UPDATE `oauth_token_pairs` SET `revoked_at`=? WHERE `oauth_token_pairs`.`school_id` = ? AND (request_id = ? AND revoked_at IS NULL)",
			"oauth_token_pairs_request_idx"},
		{"SELECT `id` FROM `oauth_token_pairs` WHERE `oauth_token_pairs`.`school_id` = ? AND request_id = ? ORDER BY id",
			"oauth_token_pairs_request_idx"},
		{"DELETE FROM oauth_token_pairs WHERE id IN (SELECT id FROM oauth_token_pairs WHERE " + purgeCondition(t, "oauth_token_pairs") + " LIMIT ?)",
			"oauth_token_pairs_expiry_idx"},
	} {
		rows, err := s.db.Raw("EXPLAIN QUERY PLAN "+tc.sql, 1, 1, "x", 1).Rows()
		if err != nil {
			t.Fatalf("%s: %v", tc.sql, err)
		}
		if got := strings.Join(planLines(t, rows), "; "); !strings.Contains(got, "USING INDEX "+tc.index) && !strings.Contains(got, "USING COVERING INDEX "+tc.index) {
			t.Errorf("%s\nplan: %s\nwant it to use %s", tc.sql, got, tc.index)
		}
	}
}

// purgeCondition is the purge job's condition for table.
func purgeCondition(t *testing.T, table string) string {
	for _, p := range purgeTargets {
		if p.table == table {
			return p.expired
		}
	}
	t.Fatalf("no purge target for %s", table)
	return ""
}
