package gormstore

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"
)

// TestPostgresRefreshPairFindsThePairByID pins the plan of RefreshPair's statement on PostgreSQL:
// the replaced pair is found through the primary key, so a refresh reads one pair however many
// its grant holds. With the grant among the locking query's conditions, the generic plan (which
// the driver's prepared statements get after five runs) chose the grant index: both estimates
// were one row, and the scan read every pair of the grant (docs/benchmarks.md, "The token
// endpoint with 10 million pairs"). The table here is a grant of 200 pairs among 2000 grants of
// one pair, analysed, and the plan is EXPLAINed without running the statement.
func TestPostgresRefreshPairFindsThePairByID(t *testing.T) {
	s := newPostgresStore(t)
	ctx := inSchoolA(t, s, nil)
	var member int64
	if err := s.db.Raw(`INSERT INTO members (email, created_at, updated_at) VALUES ('m@example.com', now(), now()) RETURNING id`).Row().Scan(&member); err != nil {
		t.Fatal(err)
	}
	for _, fill := range []struct{ grant, from, to string }{
		{"'g-' || g", "1", "2000"},  // 2000 grants of one pair
		{"'chain'", "2001", "2200"}, // one grant of 200 pairs
	} {
		err := s.db.Exec(`INSERT INTO oauth_token_pairs (request_id, school_id, client_id, member_id, access_signature,
  refresh_signature, data, requested_at, access_expires_at, refresh_expires_at)
SELECT `+fill.grant+`, 1, 'app', ?, 'a' || g, 'r' || g, '{}', now(), now() + interval '1 hour', now() + interval '30 days'
FROM generate_series(`+fill.from+`, `+fill.to+`) AS g`, member).Error
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := s.db.Exec(`ANALYZE oauth_token_pairs`).Error; err != nil {
		t.Fatal(err)
	}
	var replaced int64
	if err := s.db.Raw(`SELECT max(id) FROM oauth_token_pairs WHERE request_id = 'chain'`).Row().Scan(&replaced); err != nil {
		t.Fatal(err)
	}

	sqlDB, err := s.db.DB()
	if err != nil {
		t.Fatal(err)
	}
	conn, err := sqlDB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// The statement with $n placeholders, as the driver prepares it; every ? in it is one.
	n := 0
	prepared := strings.Join(strings.Split(refreshPairPostgres, "?"), "\x00")
	for strings.Contains(prepared, "\x00") {
		n++
		prepared = strings.Replace(prepared, "\x00", fmt.Sprintf("$%d", n), 1)
	}
	for _, q := range []string{"SET plan_cache_mode = force_generic_plan", "PREPARE refresh_pair AS " + prepared} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// school, replaced pair, the new pair's columns (pairInsertColumns), grant.
	args := fmt.Sprintf(`1, %d, 'chain', 1, 'app', %d, 'a-new', 'r-new', '', '', '{}', now(), now(), now(), NULL, NULL, %d, 1, '', 'chain'`,
		replaced, member, replaced)
	if got := strings.Count(args, ",") + 1; got != n {
		t.Fatalf("%d arguments for %d placeholders", got, n)
	}
	rows, err := conn.QueryContext(ctx, "EXPLAIN EXECUTE refresh_pair("+args+")")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(planLines(t, rows), "\n")
	if !strings.Contains(got, "oauth_token_pairs_pkey") || strings.Contains(got, "oauth_token_pairs_request_idx") {
		t.Errorf("RefreshPair's plan:\n%s\nwant the replaced pair found through oauth_token_pairs_pkey", got)
	}
}

// planLines reads the answer of an EXPLAIN, one line of the plan a row: the last column of each
// (SQLite's EXPLAIN QUERY PLAN gives three ids before it, PostgreSQL's EXPLAIN the line alone).
func planLines(t *testing.T, rows *sql.Rows) []string {
	t.Helper()
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var line string
	dest := make([]any, len(cols))
	for i := range dest[:len(dest)-1] {
		dest[i] = new(any)
	}
	dest[len(dest)-1] = &line
	var plan []string
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, line)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return plan
}
