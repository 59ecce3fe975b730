package gormstore_test

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/gormstore/storetest"
)

// The token endpoint's store calls with a large token-pair table. These tests are in package
// gormstore_test because they share storetest's fill with the verifier's benchmark, and storetest
// imports gormstore.

// BenchmarkTokenEndpointManyPairs measures, on PostgreSQL, the store's part of a code exchange
// (GetCodeGrant, then ExchangeCode) and of a refresh (GetTokenPair by the refresh signature, then
// RefreshPair) at each size of the token-pair table PROCTOR_BENCH_PAIRS lists, to show that their
// cost does not grow with the table. It runs only when that variable is set too: 10 million pairs
// take some 6 minutes to write. Each exchange spends a code stored beforehand with the timer
// stopped (CreateCodeGrant, which does not touch the pairs); the refreshes follow one rotation
// chain, each replacing the pair the one before stored. Both insert a pair into the table being
// measured, so the table also grows by the pairs the benchmark makes. statements/op counts the
// timed statements only.
//
//	PROCTOR_TEST_POSTGRES_DSN=... PROCTOR_BENCH_PAIRS=10000,1000000,10000000 \
//	  go test -run '^$' -bench TokenEndpointManyPairs -benchtime 20000x -timeout 60m ./storage/gormstore
func BenchmarkTokenEndpointManyPairs(b *testing.B) {
	if os.Getenv(storetest.BenchPairsEnv) == "" {
		b.Skipf("set %s and %s to run against PostgreSQL", storetest.PostgresDSNEnv, storetest.BenchPairsEnv)
	}
	r := newTokenRig(b)
	for _, n := range storetest.BenchPairSizes(b) {
		r.Fill.GrowTo(b, n)
		b.Run(fmt.Sprintf("pairs=%d/exchange", n), func(b *testing.B) {
			counter, untimed := r.Store.CountStatements(), int64(0)
			for b.Loop() {
				b.StopTimer()
				before := r.Store.Statements()
				sig := r.authorize(b)
				untimed += r.Store.Statements() - before
				b.StartTimer()
				r.exchange(b, sig)
			}
			b.ReportMetric(float64(counter.Count()-untimed)/float64(b.N), "statements/op")
		})
		r.RunCounted(b, fmt.Sprintf("pairs=%d/refresh", n), r.refresh)
	}
}

// TestTokenEndpointManyPairs runs the benchmark's operations a few times over a small fill, so
// that the benchmark keeps working where it is not run, and pins what it counts: two statements
// for each operation, and the operations doing what they stand for. Nothing is timed.
func TestTokenEndpointManyPairs(t *testing.T) {
	r := newTokenRig(t)
	for _, n := range []int{10, 100} {
		r.Fill.GrowTo(t, n)
		for range 3 {
			sig := r.authorize(t)
			counter := r.Store.CountStatements()
			p := r.exchange(t, sig)
			if got := counter.Count(); got != 2 {
				t.Errorf("pairs=%d: exchange sent %d statements, want 2", n, got)
			}
			if _, err := r.Store.ExchangeCode(r.Ctx, sig, r.pair(p.RequestID, 0)); !errors.Is(err, storage.ErrNotFound) {
				t.Errorf("pairs=%d: second exchange of one code: %v, want ErrNotFound", n, err)
			}
			if g, err := r.Store.GetCodeGrant(r.Ctx, sig); err != nil || g.Code.Active || g.PKCE != nil || g.OIDC != nil {
				t.Errorf("pairs=%d: the spent code: %+v, %v; want it inactive without records", n, g, err)
			}

			prev := r.last
			counter.Reset()
			r.refresh(t)
			if got := counter.Count(); got != 2 {
				t.Errorf("pairs=%d: refresh sent %d statements, want 2", n, got)
			}
			if r.last.ReplacesPairID != prev.ID || r.last.RequestID != prev.RequestID {
				t.Errorf("pairs=%d: refreshed pair %+v, want the child of %d in grant %q", n, r.last, prev.ID, prev.RequestID)
			}
		}
	}
	var pairs int
	if err := r.Fill.DB().QueryRowContext(t.Context(), `SELECT count(*) FROM oauth_token_pairs`).Scan(&pairs); err != nil {
		t.Fatal(err)
	}
	// The fill, the chain's first pair, 6 exchanges and 6 refreshes.
	if want := 100 + 1 + 6 + 6; pairs != want {
		t.Errorf("%d pairs stored, want %d", pairs, want)
	}
}

// tokenRig is the benchmarks' PostgreSQL store with the benchmark's refresh chain, at the
// school, client and member of the filler pairs.
type tokenRig struct {
	*storetest.PairBench
	seq int
	// last is the newest pair of the refresh chain.
	last storage.TokenPair
}

// tokenRigData stands for the serialised request fosite stores with a code, its records and its
// pairs (about 1 KB: client, scopes, form, session).
var tokenRigData = []byte(`{"session":{"school_id":1,"extra":"` + strings.Repeat("x", 900) + `"}}`)

func newTokenRig(tb testing.TB) *tokenRig {
	tb.Helper()
	r := &tokenRig{PairBench: storetest.NewPairBench(tb)}
	var err error
	r.last, err = r.Store.CreateTokenPair(r.Ctx, r.pair("grant-chain", 0))
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// pair is a new pair of grant, replacing the pair replaces (0: none), with signatures of its own.
func (r *tokenRig) pair(grant string, replaces int64) storage.TokenPair {
	r.seq++
	now := time.Now()
	refresh := now.Add(30 * 24 * time.Hour)
	return storage.TokenPair{
		RequestID: grant, ClientID: r.ClientID, MemberID: r.MemberID,
		AccessSignature: fmt.Sprintf("bench-access-%d", r.seq), RefreshSignature: fmt.Sprintf("bench-refresh-%d", r.seq),
		Resource: r.School.Origin, Scopes: []string{"openid", "account:read"}, Data: tokenRigData,
		RequestedAt: now, AccessExpiresAt: now.Add(time.Hour), RefreshExpiresAt: &refresh,
		ReplacesPairID: replaces, SchoolID: r.School.SchoolID, AMR: []string{"pwd"},
	}
}

// authorize stores a code with its PKCE and OpenID Connect records, as the authorization
// endpoint does, and returns its signature.
func (r *tokenRig) authorize(tb testing.TB) string {
	tb.Helper()
	r.seq++
	sig, grant, exp := fmt.Sprintf("bench-code-%d", r.seq), fmt.Sprintf("bench-grant-%d", r.seq), time.Now().Add(10*time.Minute)
	side := &storage.GrantSession{RequestID: grant, Data: tokenRigData, ExpiresAt: exp}
	oidc := *side
	err := r.Store.CreateCodeGrant(r.Ctx, storage.CodeGrant{
		Code: storage.AuthorizationCode{
			Signature: sig, RequestID: grant, ClientID: r.ClientID, MemberID: r.MemberID, Active: true,
			Data: tokenRigData, RequestedAt: time.Now(), ExpiresAt: exp,
		},
		PKCE: side, OIDC: &oidc,
	})
	if err != nil {
		tb.Fatal(err)
	}
	return sig
}

// exchange reads the code with its records and spends it for a new pair: the store's calls of a
// code exchange.
func (r *tokenRig) exchange(tb testing.TB, sig string) storage.TokenPair {
	tb.Helper()
	g, err := r.Store.GetCodeGrant(r.Ctx, sig)
	if err != nil || !g.Code.Active || g.PKCE == nil || g.OIDC == nil {
		tb.Fatalf("get code grant: %+v, %v", g, err)
	}
	p, err := r.Store.ExchangeCode(r.Ctx, sig, r.pair(g.Code.RequestID, 0))
	if err != nil {
		tb.Fatalf("exchange code: %v", err)
	}
	return p
}

// refresh reads the chain's newest pair by its refresh signature and stores its child: the
// store's calls of a refresh.
func (r *tokenRig) refresh(tb testing.TB) {
	tb.Helper()
	old, err := r.Store.GetTokenPair(r.Ctx, storage.RefreshToken, r.last.RefreshSignature)
	if err != nil {
		tb.Fatalf("get token pair: %v", err)
	}
	r.last, err = r.Store.RefreshPair(r.Ctx, r.pair(old.RequestID, old.ID))
	if err != nil {
		tb.Fatalf("refresh pair: %v", err)
	}
}
