package gormstore

import "testing"

func TestStatementNames(t *testing.T) {
	for _, c := range []struct{ sql, kind, table string }{
		{"SELECT * FROM `members` WHERE id = ?", "SELECT", "members"},
		{"WITH spent AS (UPDATE oauth_authorization_codes SET active = false WHERE signature = ? RETURNING 1) INSERT INTO oauth_token_pairs (id) SELECT 1 FROM spent", "WITH", "oauth_authorization_codes"},
		{"  insert into \"mail_outbox\" (a) values (?)", "INSERT", "mail_outbox"},
		{"SELECT 1", "SELECT", ""},
	} {
		if k, tb := statementKind(c.sql), firstTable(c.sql); k != c.kind || tb != c.table {
			t.Errorf("%q: %q %q, want %q %q", c.sql, k, tb, c.kind, c.table)
		}
	}
}
