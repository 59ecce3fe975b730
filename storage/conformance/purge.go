package conformance

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/proctorhq/proctor/storage"
)

func testPurgeExpired(t *testing.T, s storage.Store) {
	ctxA, ctxB, member := oauthSetup(t, s)
	before := at(10, 0)
	expired, live := at(9, 0), at(11, 0)
	ctxOf := map[bool]context.Context{false: ctxA, true: ctxB}

	// Each kind has expired rows at both schools (the purge is deployment-wide) and live ones.
	type row struct {
		sig   string
		exp   time.Time
		atB   bool
		stays bool
	}
	codes := []row{{"c-exp-1", expired, false, false}, {"c-exp-2", at(8, 0), false, false}, {"c-exp-3", expired, true, false},
		{"c-live", live, false, true}, {"c-edge", before, false, true}} // expiring at `before` is not expired before it
	sessions := []row{{"g-exp-1", expired, false, false}, {"g-exp-2", expired, true, false}, {"g-live", live, false, true}}
	logins := []row{{"l-exp-1", expired, false, false}, {"l-exp-2", expired, true, false}, {"l-live", live, false, true}}
	for _, r := range codes {
		c := codeOf("app", r.sig, r.sig, member)
		c.ExpiresAt = r.exp
		must(t, "CreateCodeGrant", s.CreateCodeGrant(ctxOf[r.atB], storage.CodeGrant{Code: c}))
	}
	// The PKCE and OpenID Connect records are stored and read with their code, which stays live
	// here: the records expire on their own.
	for _, r := range sessions {
		c := codeOf("app", r.sig, r.sig, member)
		c.ExpiresAt = live
		rec := &storage.GrantSession{RequestID: r.sig, Data: []byte("{}"), ExpiresAt: r.exp}
		must(t, "CreateCodeGrant", s.CreateCodeGrant(ctxOf[r.atB], storage.CodeGrant{Code: c, PKCE: rec, OIDC: rec}))
	}
	hasRecord := func(ctx context.Context, kind storage.SessionKind, sig string) bool {
		g := getCode(t, s, ctx, sig)
		return (kind == storage.SessionPKCE && g.PKCE != nil) || (kind == storage.SessionOIDC && g.OIDC != nil)
	}
	for _, r := range logins {
		ls := storage.LoginSession{ID: r.sig, MemberID: member, CreatedAt: at(1, 0), ExpiresAt: r.exp}
		must(t, "CreateLoginSession", s.CreateLoginSession(ctxOf[r.atB], ls))
	}

	pair := func(ctx context.Context, rid, n string, access time.Time, refresh *time.Time, replaces int64) storage.TokenPair {
		p := pairOf("app", rid, n, member)
		p.AccessExpiresAt, p.RefreshExpiresAt, p.ReplacesPairID = access, refresh, replaces
		if refresh == nil {
			p.RefreshSignature = ""
		}
		return mustPair(t, s, ctx, p)
	}
	dead1 := pair(ctxA, "d1", "dead-1", at(8, 0), ptr(expired), 0)
	dead2 := pair(ctxB, "d2", "dead-2", expired, nil, 0)
	old := pair(ctxA, "g", "old", at(8, 0), ptr(expired), 0)
	// The refreshed pair outlives the one it replaced; revoked pairs stay until they expire.
	renewed := pair(ctxA, "g", "new", expired, ptr(at(20, 0)), old.ID)
	revoked := pairOf("app", "r", "revoked", member)
	revoked.AccessExpiresAt, revoked.RefreshExpiresAt, revoked.RevokedAt = at(8, 0), ptr(at(20, 0)), ptr(at(7, 0))
	revoked = mustPair(t, s, ctxA, revoked)
	accessOnly := pair(ctxA, "a", "access-only", live, nil, 0)
	type pairRow struct {
		p     storage.TokenPair
		ctx   context.Context
		stays bool
	}
	pairs := []pairRow{{dead1, ctxA, false}, {dead2, ctxB, false}, {old, ctxA, false},
		{renewed, ctxA, true}, {revoked, ctxA, true}, {accessOnly, ctxA, true}}

	_, err := s.PurgeExpired(t.Context(), before, 0)
	wantErr(t, "PurgeExpired with batch 0", err, storage.ErrInvalidArgument)

	// remaining counts the expired rows of each kind still stored.
	remaining := func() map[string]int {
		n := map[string]int{}
		for _, r := range codes {
			if _, err := s.GetCodeGrant(ctxOf[r.atB], r.sig); !r.stays && !errors.Is(err, storage.ErrNotFound) {
				n["codes"]++
			}
		}
		for _, kind := range []storage.SessionKind{storage.SessionPKCE, storage.SessionOIDC} {
			for _, r := range sessions {
				if !r.stays && hasRecord(ctxOf[r.atB], kind, r.sig) {
					n[string(kind)]++
				}
			}
		}
		for _, r := range logins {
			if _, _, err := s.GetLoginSession(ctxOf[r.atB], r.sig); !r.stays && !errors.Is(err, storage.ErrNotFound) {
				n["logins"]++
			}
		}
		for _, r := range pairs {
			if _, err := s.GetTokenPair(r.ctx, storage.AccessToken, r.p.AccessSignature); !r.stays && !errors.Is(err, storage.ErrNotFound) {
				n["pairs"]++
			}
		}
		return n
	}

	// A batch of 2 deletes at most 2 rows of each kind: all 2 expired PKCE, OpenID Connect and
	// login sessions, 2 of the 3 expired codes and 2 of the 3 expired pairs.
	n, err := s.PurgeExpired(t.Context(), before, 2)
	must(t, "PurgeExpired", err)
	if n != 10 {
		t.Errorf("first purge deleted %d rows, want 10", n)
	}
	wantEqual(t, "expired rows left after a batch of 2", remaining(), map[string]int{"codes": 1, "pairs": 1})

	n, err = s.PurgeExpired(t.Context(), before, 100)
	must(t, "PurgeExpired", err)
	if n != 2 {
		t.Errorf("second purge deleted %d rows, want 2", n)
	}
	wantEqual(t, "expired rows left", remaining(), map[string]int{})
	n, err = s.PurgeExpired(t.Context(), before, 100)
	must(t, "PurgeExpired", err)
	if n != 0 {
		t.Errorf("third purge deleted %d rows, want 0", n)
	}

	// Every live row is still there.
	for _, r := range codes {
		if _, err := s.GetCodeGrant(ctxOf[r.atB], r.sig); r.stays && err != nil {
			t.Errorf("live code %s: %v", r.sig, err)
		}
	}
	for _, kind := range []storage.SessionKind{storage.SessionPKCE, storage.SessionOIDC} {
		if !hasRecord(ctxA, kind, "g-live") {
			t.Errorf("live %s session purged", kind)
		}
	}
	if _, _, err := s.GetLoginSession(ctxA, "l-live"); err != nil {
		t.Errorf("live login session: %v", err)
	}
	for _, r := range pairs {
		if r.stays {
			getPair(t, s, r.ctx, r.p.AccessSignature)
		}
	}
	// The purged pair no longer counts as the one the live pair replaced.
	got := getPair(t, s, ctxA, renewed.AccessSignature)
	if got.ReplacesPairID != 0 {
		t.Errorf("live pair still replaces purged pair %d", got.ReplacesPairID)
	}
	first, err := s.RetireReplaced(ctxA, renewed.ID, at(10, 1))
	must(t, "RetireReplaced after the replaced pair was purged", err)
	if !first {
		t.Error("RetireReplaced after the purge is not the first")
	}
}
