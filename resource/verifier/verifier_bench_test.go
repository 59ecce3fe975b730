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
	ctx := context.Background()
	st, cfg := storetest.OpenConfig(b, gormstore.DriverPostgres)
	db, err := sql.Open("pgx", cfg.DSN)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = db.Close() })

	const schoolID = 1
	t := &school.School{SchoolID: schoolID, Subdomain: "bench", Origin: "http://127.0.0.1:8080", Host: "127.0.0.1:8080"}
	tctx := school.NewContext(ctx, t)
	mustExec(b, db, `INSERT INTO schools (id, subdomain, created_at, updated_at) VALUES ($1, 'bench', now(), now())`, schoolID)
	mustExec(b, db, `INSERT INTO oauth_clients (id, school_id, kind, token_endpoint_auth_method, created_at, updated_at)
VALUES ('bench-app', $1, 'member', 'none', now(), now())`, schoolID)
	var member int64
	if err := db.QueryRow(`INSERT INTO members (email, created_at, updated_at) VALUES ('bench@example.com', now(), now()) RETURNING id`).Scan(&member); err != nil {
		b.Fatal(err)
	}
	data := fmt.Sprintf(`{"session":{"school_id":%d}}`, schoolID)

	key := make([]byte, 32)
	strategy := &hmac.HMACStrategy{Config: &fosite.Config{GlobalSecret: key}}
	token, signature, err := strategy.Generate(ctx)
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	if _, err := st.CreateTokenPair(tctx, storage.TokenPair{
		RequestID: "grant-measured", ClientID: "bench-app", MemberID: member, AccessSignature: signature,
		Resource: t.Origin, Scopes: []string{"account:read"}, Data: []byte(data),
		RequestedAt: now, AccessExpiresAt: now.Add(2 * time.Hour), FirstUsedAt: &now, SchoolID: schoolID,
	}); err != nil {
		b.Fatal(err)
	}
	v := verifier.New(st, key, nil)
	if g, err := v.Verify(tctx, token); err != nil || g.MemberID != member {
		b.Fatalf("verify: %+v, %v", g, err)
	}

	fill := storetest.NewPairFill(b, cfg.DSN, schoolID, "bench-app", member)
	for _, n := range sizes {
		fill.GrowTo(b, n)
		b.Run(fmt.Sprintf("pairs=%d", n), func(b *testing.B) {
			counter := st.CountStatements()
			for b.Loop() {
				if _, err := v.Verify(tctx, token); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(counter.Count())/float64(b.N), "statements/op")
		})
	}
}

func mustExec(b *testing.B, db *sql.DB, q string, args ...any) {
	b.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		b.Fatal(err)
	}
}
