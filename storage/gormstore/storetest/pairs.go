package storetest

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver, for the bulk fill

	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/gormstore"
)

// BenchPairsEnv lists the sizes of the token-pair table that the benchmarks of a read or write
// of oauth_token_pairs measure at, in increasing order, to show that its cost does not grow with
// the table (docs/benchmarks.md records runs at 10 thousand and 10 million pairs).
const BenchPairsEnv = "PROCTOR_BENCH_PAIRS"

// BenchPairSizes returns the counts of BenchPairsEnv (comma-separated, increasing), or def when
// it is unset.
func BenchPairSizes(tb testing.TB, def ...int) []int {
	tb.Helper()
	v := os.Getenv(BenchPairsEnv)
	if v == "" {
		return def
	}
	var sizes []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 || (len(sizes) > 0 && n < sizes[len(sizes)-1]) {
			tb.Fatalf("%s=%q: want increasing counts, comma-separated", BenchPairsEnv, v)
		}
		sizes = append(sizes, n)
	}
	return sizes
}

// PairFill grows oauth_token_pairs of a PostgreSQL database with filler pairs of one school,
// client and member (which must exist), live and unused, each of a grant of its own. Measured
// rows sharing that school, client and member are the worst case for the indexes that lead with
// them. The table only grows, so that one run measures every size on the same connections and
// under the same load from the rest of the machine.
type PairFill struct {
	db       *sql.DB
	schoolID int64
	clientID string
	memberID int64
	stored   int
}

// NewPairFill fills through a connection of its own to dsn (the DSN OpenConfig returns), closed
// when the test ends. The filler rows go with the test's schema.
func NewPairFill(tb testing.TB, dsn string, schoolID int64, clientID string, memberID int64) *PairFill {
	tb.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = db.Close() })
	return &PairFill{db: db, schoolID: schoolID, clientID: clientID, memberID: memberID}
}

// GrowTo adds filler pairs until n are stored, with one INSERT ... SELECT generate_series per
// million rows, then analyses the table, as a live database would have. About 6 minutes for 10
// million on the project's 2-core machine.
func (f *PairFill) GrowTo(tb testing.TB, n int) {
	tb.Helper()
	start := time.Now()
	const chunk = 1_000_000
	data := fmt.Sprintf(`{"session":{"school_id":%d}}`, f.schoolID)
	for from := f.stored + 1; from <= n; from += chunk {
		to := min(from+chunk-1, n)
		_, err := f.db.ExecContext(tb.Context(), `INSERT INTO oauth_token_pairs (request_id, school_id, client_id, member_id,
  access_signature, refresh_signature, resource, scopes, data, requested_at, access_expires_at, refresh_expires_at,
  first_used_at, grant_school_id)
SELECT 'grant-' || g, $1, $2, $3, md5('a' || g), md5('r' || g), 'http://127.0.0.1:8080', 'account:read', $4,
  now(), now() + interval '2 hours', now() + interval '30 days', now(), $1
FROM generate_series($5::bigint, $6::bigint) AS g`, f.schoolID, f.clientID, f.memberID, data, from, to)
		if err != nil {
			tb.Fatalf("storetest: fill pairs %d to %d: %v", from, to, err)
		}
	}
	if _, err := f.db.ExecContext(tb.Context(), `ANALYZE oauth_token_pairs`); err != nil {
		tb.Fatal(err)
	}
	tb.Logf("%d filler pairs stored (%d added in %s)", n, n-f.stored, time.Since(start).Round(time.Millisecond))
	f.stored = max(f.stored, n)
}

// DB is the fill's connection, for a test's own reads of the database (EXPLAIN, counts).
func (f *PairFill) DB() *sql.DB { return f.db }

// PairBench is what the benchmarks of oauth_token_pairs measure in: a migrated PostgreSQL store
// with one school, its public client and a member, and the filler pairs at the three (Fill,
// empty until grown).
type PairBench struct {
	Store *gormstore.Store
	// Ctx is in School, whose Origin the measured pairs name as their resource.
	Ctx      context.Context
	School   *school.School
	ClientID string
	MemberID int64
	Fill     *PairFill
}

// NewPairBench opens the store and creates the school, client and member through it. It skips
// the test when PROCTOR_TEST_POSTGRES_DSN is unset.
func NewPairBench(tb testing.TB) *PairBench {
	tb.Helper()
	if os.Getenv(PostgresDSNEnv) == "" {
		tb.Skipf("set %s to run against PostgreSQL", PostgresDSNEnv)
	}
	st, cfg := OpenConfig(tb, gormstore.DriverPostgres)
	sch := &school.School{SchoolID: 1, Subdomain: "bench", Origin: "http://127.0.0.1:8080", Host: "127.0.0.1:8080"}
	p := &PairBench{Store: st, Ctx: school.NewContext(context.Background(), sch), School: sch, ClientID: "bench-app"}
	if err := st.SyncSchool(p.Ctx, sch.SchoolID, sch.Subdomain, "Bench"); err != nil {
		tb.Fatal(err)
	}
	if _, err := st.CreateClient(p.Ctx, storage.Client{ID: p.ClientID, Kind: storage.ClientMember, TokenEndpointAuthMethod: storage.AuthMethodNone}); err != nil {
		tb.Fatal(err)
	}
	m, err := st.CreateMember(p.Ctx, storage.Member{Email: "bench@example.com"})
	if err != nil {
		tb.Fatal(err)
	}
	p.MemberID = m.ID
	p.Fill = NewPairFill(tb, cfg.DSN, sch.SchoolID, p.ClientID, m.ID)
	return p
}

// RunCounted runs op as the sub-benchmark name and reports the statements it sends per op.
func (p *PairBench) RunCounted(b *testing.B, name string, op func(tb testing.TB)) {
	b.Helper()
	b.Run(name, func(b *testing.B) {
		counter := p.Store.CountStatements()
		for b.Loop() {
			op(b)
		}
		b.ReportMetric(float64(counter.Count())/float64(b.N), "statements/op")
	})
}
