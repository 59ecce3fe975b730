package verifier_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/ory/fosite"
	"github.com/ory/fosite/token/hmac"

	"github.com/proctorhq/proctor/resource/verifier"
	"github.com/proctorhq/proctor/storage"
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
	sizes := storetest.BenchPairSizes(b, 1000, 100_000)
	r := newManyPairs(b)
	for _, n := range sizes {
		r.Fill.GrowTo(b, n)
		r.RunCounted(b, fmt.Sprintf("pairs=%d", n), r.verify)
	}
}

// TestVerifyManyPairs runs the benchmark's check over a small fill, so that the benchmark keeps
// working where it is not run, and pins what it counts: one statement a verification, the
// filler pairs notwithstanding. Nothing is timed.
func TestVerifyManyPairs(t *testing.T) {
	r := newManyPairs(t)
	for _, n := range []int{10, 100} {
		r.Fill.GrowTo(t, n)
		counter := r.Store.CountStatements()
		for range 3 {
			r.verify(t)
		}
		if got := counter.Count(); got != 3 {
			t.Errorf("pairs=%d: 3 verifications sent %d statements, want 3", n, got)
		}
	}
}

// manyPairs is the benchmarks' PostgreSQL store with the pair whose token is verified, at the
// school, client and member of the filler pairs.
type manyPairs struct {
	*storetest.PairBench
	v     *verifier.Verifier
	token string
}

func newManyPairs(tb testing.TB) *manyPairs {
	tb.Helper()
	p := storetest.NewPairBench(tb)
	data := fmt.Sprintf(`{"session":{"school_id":%d}}`, p.School.SchoolID)

	key := make([]byte, 32)
	strategy := &hmac.HMACStrategy{Config: &fosite.Config{GlobalSecret: key}}
	token, signature, err := strategy.Generate(p.Ctx)
	if err != nil {
		tb.Fatal(err)
	}
	now := time.Now()
	if _, err := p.Store.CreateTokenPair(p.Ctx, storage.TokenPair{
		RequestID: "grant-measured", ClientID: p.ClientID, MemberID: p.MemberID, AccessSignature: signature,
		Resource: p.School.Origin, Scopes: []string{"account:read"}, Data: []byte(data),
		RequestedAt: now, AccessExpiresAt: now.Add(2 * time.Hour), FirstUsedAt: &now, SchoolID: p.School.SchoolID,
	}); err != nil {
		tb.Fatal(err)
	}
	return &manyPairs{PairBench: p, v: verifier.New(p.Store, key, nil), token: token}
}

// verify checks the measured token, which must be accepted as the member's.
func (r *manyPairs) verify(tb testing.TB) {
	g, err := r.v.Verify(r.Ctx, r.token)
	if err != nil || g.MemberID != r.MemberID {
		tb.Fatalf("verify: %+v, %v", g, err)
	}
}
