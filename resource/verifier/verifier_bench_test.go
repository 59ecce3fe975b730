package verifier_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver, for the bulk fill
	"github.com/ory/fosite"
	"github.com/ory/fosite/token/hmac"

	"github.com/proctorhq/proctor/resource/verifier"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/gormstore"
	"github.com/proctorhq/proctor/storage/gormstore/storetest"
)

// BenchmarkVerifyManyPairs measures the bearer-token check that every protected request makes
// (HMAC check, one indexed read of the pair, the school and expiry checks) on PostgreSQL, once
// per table size of PROCTOR_BENCH_PAIRS (default 1000,100000), to show that its cost does not
// grow with the table. One table grows from size to size (storetest.PairFill), so that every
// size is measured in the same run, on the same connection pool and under the same load from
// the rest of the machine. docs/benchmarks.md records a run at 10,000 and 10,000,000.
//
//	PROCTOR_TEST_POSTGRES_DSN=... PROCTOR_BENCH_PAIRS=10000,10000000 \
//	  go test -run '^$' -bench VerifyManyPairs -benchtime 20000x -timeout 60m ./resource/verifier
func BenchmarkVerifyManyPairs(b *testing.B) {
	if os.Getenv(storetest.PostgresDSNEnv) == "" {
		b.Skipf("set %s to run against PostgreSQL", storetest.PostgresDSNEnv)
	}
	sizes := storetest.BenchPairSizes(b, 1000, 100_000)
	r := newManyPairs(b)
	for _, n := range sizes {
		r.fill.GrowTo(b, n)
		b.Run(fmt.Sprintf("pairs=%d", n), func(b *testing.B) {
			counter := r.st.CountStatements()
			for b.Loop() {
				r.verify(b)
			}
			b.ReportMetric(float64(counter.Count())/float64(b.N), "statements/op")
		})
	}
}

// TestVerifyManyPairs runs the benchmark's check over a small fill, so that the benchmark keeps
// working where it is not run, and pins what it counts: one statement a verification, the
// filler pairs notwithstanding. Nothing is timed.
func TestVerifyManyPairs(t *testing.T) {
	if os.Getenv(storetest.PostgresDSNEnv) == "" {
		t.Skipf("set %s to run against PostgreSQL", storetest.PostgresDSNEnv)
	}
	r := newManyPairs(t)
	for _, n := range []int{10, 100} {
		r.fill.GrowTo(t, n)
		counter := r.st.CountStatements()
		for range 3 {
			r.verify(t)
		}
		if got := counter.Count(); got != 3 {
			t.Errorf("pairs=%d: 3 verifications sent %d statements, want 3", n, got)
		}
	}
}

// manyPairs is a PostgreSQL store with one school, client and member, the pair whose token is
// verified and the filler pairs all at them.
type manyPairs struct {
	st     *gormstore.Store
	ctx    context.Context
	v      *verifier.Verifier
	token  string
	member int64
	fill   *storetest.PairFill
}

func newManyPairs(tb testing.TB) *manyPairs {
	tb.Helper()
	ctx := context.Background()
	st, cfg := storetest.OpenConfig(tb, gormstore.DriverPostgres)
	db, err := sql.Open("pgx", cfg.DSN)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = db.Close() })

	const schoolID = 1
	t := &school.School{SchoolID: schoolID, Subdomain: "bench", Origin: "http://127.0.0.1:8080", Host: "127.0.0.1:8080"}
	tctx := school.NewContext(ctx, t)
	mustExec(tb, db, `INSERT INTO schools (id, subdomain, created_at, updated_at) VALUES ($1, 'bench', now(), now())`, schoolID)
	mustExec(tb, db, `INSERT INTO oauth_clients (id, school_id, kind, token_endpoint_auth_method, created_at, updated_at)
VALUES ('bench-app', $1, 'member', 'none', now(), now())`, schoolID)
	var member int64
	if err := db.QueryRow(`INSERT INTO members (email, created_at, updated_at) VALUES ('bench@example.com', now(), now()) RETURNING id`).Scan(&member); err != nil {
		tb.Fatal(err)
	}
	data := fmt.Sprintf(`{"session":{"school_id":%d}}`, schoolID)

	key := make([]byte, 32)
	strategy := &hmac.HMACStrategy{Config: &fosite.Config{GlobalSecret: key}}
	token, signature, err := strategy.Generate(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	now := time.Now()
	if _, err := st.CreateTokenPair(tctx, storage.TokenPair{
		RequestID: "grant-measured", ClientID: "bench-app", MemberID: member, AccessSignature: signature,
		Resource: t.Origin, Scopes: []string{"account:read"}, Data: []byte(data),
		RequestedAt: now, AccessExpiresAt: now.Add(2 * time.Hour), FirstUsedAt: &now, SchoolID: schoolID,
	}); err != nil {
		tb.Fatal(err)
	}
	return &manyPairs{
		st: st, ctx: tctx, v: verifier.New(st, key, nil), token: token, member: member,
		fill: storetest.NewPairFill(tb, cfg.DSN, schoolID, "bench-app", member),
	}
}

// verify checks the measured token, which must be accepted as the member's.
func (r *manyPairs) verify(tb testing.TB) {
	g, err := r.v.Verify(r.ctx, r.token)
	if err != nil || g.MemberID != r.member {
		tb.Fatalf("verify: %+v, %v", g, err)
	}
}

func mustExec(tb testing.TB, db *sql.DB, q string, args ...any) {
	tb.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		tb.Fatal(err)
	}
}
