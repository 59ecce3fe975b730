package conformance

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/storage"
)

// pairOf is a pair of client's grant requestID, its signatures numbered n.
func pairOf(client, requestID, n string, member int64) storage.TokenPair {
	return storage.TokenPair{
		RequestID:        requestID,
		ClientID:         client,
		MemberID:         member,
		AccessSignature:  "at-" + n,
		RefreshSignature: "rt-" + n,
		Resource:         "https://a.example.test",
		Scopes:           []string{"account:read", "openid"},
		Data:             []byte(`{"id":"` + requestID + `"}`),
		RequestedAt:      at(1, 8),
		AccessExpiresAt:  at(1, 9),
		RefreshExpiresAt: ptr(at(20, 9)),
	}
}

// codeOf is an active code of client's grant requestID.
func codeOf(client, requestID, signature string, member int64) storage.AuthorizationCode {
	return storage.AuthorizationCode{
		Signature: signature, RequestID: requestID, ClientID: client, MemberID: member, Active: true,
		Data: []byte(`{"id":"` + requestID + `"}`), RequestedAt: at(1, 8), ExpiresAt: at(1, 9),
	}
}

func mustPair(t *testing.T, s storage.Store, ctx context.Context, p storage.TokenPair) storage.TokenPair {
	t.Helper()
	got, err := s.CreateTokenPair(ctx, p)
	must(t, "CreateTokenPair "+p.AccessSignature, err)
	return got
}

// refreshedPair creates a pair of grant rid and the pair that replaces it on refresh.
func refreshedPair(t *testing.T, s storage.Store, ctx context.Context, rid string, member int64) (old, next storage.TokenPair) {
	t.Helper()
	old = mustPair(t, s, ctx, pairOf("app", rid, rid+"-old", member))
	next = pairOf("app", rid, rid+"-new", member)
	next.ReplacesPairID = old.ID
	return old, mustPair(t, s, ctx, next)
}

// wantStoredPair checks what a call that stores p returned (p with its new ID) and that the
// pair reads back as that by either of its signatures.
func wantStoredPair(t *testing.T, s storage.Store, ctx context.Context, call string, got, p storage.TokenPair) {
	t.Helper()
	if got.ID <= 0 {
		t.Fatalf("%s: pair id %d", call, got.ID)
	}
	p.ID = got.ID
	wantEqual(t, call+"'s pair", got, p)
	wantEqual(t, call+": pair found by its access token", getPair(t, s, ctx, p.AccessSignature), p)
	if p.RefreshSignature != "" {
		r, err := s.GetTokenPair(ctx, storage.RefreshToken, p.RefreshSignature)
		must(t, call+": GetTokenPair by refresh signature", err)
		wantEqual(t, call+": pair found by its refresh token", r, p)
	}
}

// getPair reads a pair by its access signature and fails the test now if it cannot.
func getPair(t *testing.T, s storage.Store, ctx context.Context, accessSignature string) storage.TokenPair {
	t.Helper()
	p, err := s.GetTokenPair(ctx, storage.AccessToken, accessSignature)
	must(t, "GetTokenPair "+accessSignature, err)
	return p
}

func testAuthorizationCodes(t *testing.T, s storage.Store) {
	ctxA, _, member := oauthSetup(t, s)
	c := codeOf("app", "r1", "code-1", member)
	must(t, "CreateCodeGrant", s.CreateCodeGrant(ctxA, storage.CodeGrant{Code: c}))
	wantEqual(t, "stored code", getCode(t, s, ctxA, "code-1"), storage.CodeGrant{Code: c})

	wantErr(t, "CreateCodeGrant with a taken signature", s.CreateCodeGrant(ctxA, storage.CodeGrant{Code: c}), storage.ErrAlreadyExists)
	wantErr(t, "CreateCodeGrant for an unknown member",
		s.CreateCodeGrant(ctxA, storage.CodeGrant{Code: codeOf("app", "r2", "code-2", member+1000)}), storage.ErrNotFound)
	noSig := codeOf("app", "r2", "", member)
	wantErr(t, "CreateCodeGrant without a signature", s.CreateCodeGrant(ctxA, storage.CodeGrant{Code: noSig}), storage.ErrInvalidArgument)
	_, err := s.GetCodeGrant(ctxA, "nope")
	wantErr(t, "GetCodeGrant of an unknown code", err, storage.ErrNotFound)

	// A code's security event is stored with it, or neither is.
	approved := audit.Event{Kind: audit.KindConsentApproved, Actor: audit.ActorMember, ActorID: member, SubjectID: member, ClientID: "app", Scopes: []string{"openid"}}
	withEvent := codeOf("app", "r3", "code-3", member)
	must(t, "CreateCodeGrant with an event", s.CreateCodeGrant(ctxA, storage.CodeGrant{Code: withEvent, Event: &approved}))
	wantEqual(t, "code stored with an event", getCode(t, s, ctxA, "code-3"), storage.CodeGrant{Code: withEvent})
	noActor := approved
	noActor.Actor = ""
	wantErr(t, "CreateCodeGrant with an event without actor",
		s.CreateCodeGrant(ctxA, storage.CodeGrant{Code: codeOf("app", "r4", "code-4", member), Event: &noActor}), storage.ErrInvalidArgument)
	wantErr(t, "CreateCodeGrant with an event, for an unknown member",
		s.CreateCodeGrant(ctxA, storage.CodeGrant{Code: codeOf("app", "r5", "code-5", member+1000), Event: &approved}), storage.ErrNotFound)
	_, err = s.GetCodeGrant(ctxA, "code-4")
	wantErr(t, "the code of a refused event", err, storage.ErrNotFound)
	events, err := narrow[auditLog](t, s).ListSecurityEvents(ctxA, audit.Filter{Limit: audit.MaxPage})
	must(t, "ListSecurityEvents", err)
	if len(events) != 1 || events[0].Kind != audit.KindConsentApproved || events[0].ClientID != "app" || events[0].SubjectID != member ||
		!slices.Equal(events[0].Scopes, approved.Scopes) || events[0].Result != audit.ResultSuccess {
		t.Errorf("security events after the codes %+v, want the one stored with code-3", events)
	}

	// An exchange whose pair cannot be stored spends nothing.
	mustPair(t, s, ctxA, pairOf("app", "other", "taken", member))
	_, err = s.ExchangeCode(ctxA, "code-1", pairOf("app", "r1", "taken", member))
	wantErr(t, "ExchangeCode with a taken access signature", err, storage.ErrAlreadyExists)
	replacing := pairOf("app", "r1", "1", member)
	replacing.ReplacesPairID = 1
	_, err = s.ExchangeCode(ctxA, "code-1", replacing)
	wantErr(t, "ExchangeCode with a pair that replaces one", err, storage.ErrInvalidArgument)
	wantEqual(t, "code after failed exchanges", getCode(t, s, ctxA, "code-1"), storage.CodeGrant{Code: c})

	// The exchange spends the code and stores the pair, both halves at once.
	p := pairOf("app", "r1", "1", member)
	created, err := s.ExchangeCode(ctxA, "code-1", p)
	must(t, "ExchangeCode", err)
	wantStoredPair(t, s, ctxA, "ExchangeCode", created, p)
	c.Active = false
	wantEqual(t, "used code", getCode(t, s, ctxA, "code-1"), storage.CodeGrant{Code: c})

	// A used or unknown code buys nothing.
	_, err = s.ExchangeCode(ctxA, "code-1", pairOf("app", "r1", "2", member))
	wantErr(t, "ExchangeCode twice", err, storage.ErrNotFound)
	_, err = s.ExchangeCode(ctxA, "nope", pairOf("app", "r1", "3", member))
	wantErr(t, "ExchangeCode of an unknown code", err, storage.ErrNotFound)
	for _, sig := range []string{"at-2", "at-3"} {
		_, err = s.GetTokenPair(ctxA, storage.AccessToken, sig)
		wantErr(t, "the pair of a refused exchange", err, storage.ErrNotFound)
	}
}

// getCode reads a code grant and fails the test now if it cannot.
func getCode(t *testing.T, s storage.Store, ctx context.Context, signature string) storage.CodeGrant {
	t.Helper()
	g, err := s.GetCodeGrant(ctx, signature)
	must(t, "GetCodeGrant "+signature, err)
	return g
}

// testConcurrentCodeUse presents one code several times at once: exactly one exchange wins, and
// only its pair is stored.
func testConcurrentCodeUse(t *testing.T, s storage.Store) {
	ctxA, _, member := oauthSetup(t, s)
	const rounds, racers = 5, 8
	var racer atomic.Int64
	for round := range rounds {
		sig := fmt.Sprintf("code-%d", round)
		must(t, "CreateCodeGrant", s.CreateCodeGrant(ctxA, storage.CodeGrant{Code: codeOf("app", sig, sig, member)}))
		first := racer.Load()
		exactlyOneWins(t, fmt.Sprintf("round %d: exchanges of one code", round), racers, func() error {
			_, err := s.ExchangeCode(ctxA, sig, pairOf("app", sig, fmt.Sprint(racer.Add(1)), member))
			return err
		})
		stored := 0
		for n := first + 1; n <= racer.Load(); n++ {
			if _, err := s.GetTokenPair(ctxA, storage.AccessToken, fmt.Sprint("at-", n)); err == nil {
				stored++
			}
		}
		if stored != 1 {
			t.Errorf("round %d: %d exchanges stored a pair, want 1", round, stored)
		}
	}
}

func testGrantSessions(t *testing.T, s storage.Store) {
	ctxA, _, member := oauthSetup(t, s)
	record := func(sig, kind string) *storage.GrantSession {
		return &storage.GrantSession{Signature: sig, RequestID: "r1", Data: []byte(`{"kind":"` + kind + `"}`), ExpiresAt: at(1, 9)}
	}
	pkce, oidc := record("sig-1", "pkce"), record("sig-1", "oidc")
	g := storage.CodeGrant{Code: codeOf("app", "r1", "sig-1", member), PKCE: pkce, OIDC: oidc}
	must(t, "CreateCodeGrant", s.CreateCodeGrant(ctxA, g))
	wantEqual(t, "the code with its records", getCode(t, s, ctxA, "sig-1"), g)

	// The records are written with their code or not at all.
	taken := storage.CodeGrant{Code: codeOf("app", "r2", "sig-1", member), PKCE: record("sig-1", "pkce"), OIDC: record("sig-1", "oidc")}
	wantErr(t, "CreateCodeGrant with a taken signature", s.CreateCodeGrant(ctxA, taken), storage.ErrAlreadyExists)
	lone := storage.CodeGrant{Code: codeOf("app", "r2", "sig-2", member+1000), PKCE: record("sig-2", "pkce")}
	wantErr(t, "CreateCodeGrant for an unknown member", s.CreateCodeGrant(ctxA, lone), storage.ErrNotFound)
	lone.Code.MemberID = member
	must(t, "CreateCodeGrant after the failures", s.CreateCodeGrant(ctxA, lone))
	wantEqual(t, "a code with a PKCE record only", getCode(t, s, ctxA, "sig-2"), lone)
	mismatched := storage.CodeGrant{Code: codeOf("app", "r3", "sig-3", member), OIDC: record("sig-other", "oidc")}
	wantErr(t, "CreateCodeGrant with a record of another signature", s.CreateCodeGrant(ctxA, mismatched), storage.ErrInvalidArgument)
	unsigned := storage.CodeGrant{Code: codeOf("app", "r3", "sig-3", member), OIDC: record("", "oidc")}
	must(t, "CreateCodeGrant with a record that leaves the signature to the code", s.CreateCodeGrant(ctxA, unsigned))
	if got := getCode(t, s, ctxA, "sig-3"); got.OIDC == nil || got.OIDC.Signature != "sig-3" {
		t.Errorf("a record stored without a signature: %+v", got.OIDC)
	}

	// The two kinds are separate: deleting one leaves the other.
	must(t, "DeleteGrantSession", s.DeleteGrantSession(ctxA, storage.SessionPKCE, "sig-1"))
	wantEqual(t, "the code's records after the PKCE one was deleted", getCode(t, s, ctxA, "sig-1"), storage.CodeGrant{Code: g.Code, OIDC: oidc})
	wantErr(t, "DeleteGrantSession twice", s.DeleteGrantSession(ctxA, storage.SessionPKCE, "sig-1"), storage.ErrNotFound)

	// The exchange deletes the code's records with the code's use.
	_, err := s.ExchangeCode(ctxA, "sig-2", pairOf("app", "r2", "1", member))
	must(t, "ExchangeCode", err)
	if got := getCode(t, s, ctxA, "sig-2"); got.PKCE != nil || got.OIDC != nil {
		t.Errorf("the code's records after its exchange: %+v %+v", got.PKCE, got.OIDC)
	}
	wantErr(t, "DeleteGrantSession after the exchange", s.DeleteGrantSession(ctxA, storage.SessionPKCE, "sig-2"), storage.ErrNotFound)
	wantErr(t, "DeleteGrantSession of an unknown kind", s.DeleteGrantSession(ctxA, "saml", "sig-1"), storage.ErrInvalidArgument)
}

func testTokenPairs(t *testing.T, s storage.Store) {
	ctxA, _, member := oauthSetup(t, s)

	// Both halves at once, as the token endpoint stores them.
	p := pairOf("app", "r1", "1", member)
	created := mustPair(t, s, ctxA, p)
	wantStoredPair(t, s, ctxA, "CreateTokenPair", created, p)
	_, err := s.GetTokenPair(ctxA, storage.RefreshToken, "")
	wantErr(t, "GetTokenPair of an empty refresh signature", err, storage.ErrNotFound)

	// A refresh token without expiry; a pair without a resource owner, scopes or refresh token.
	bare := storage.TokenPair{RequestID: "r2", ClientID: "ops", AccessSignature: "at-2", RefreshSignature: "rt-2", Data: []byte("{}"), RequestedAt: at(1, 8), AccessExpiresAt: at(1, 9)}
	bareCreated := mustPair(t, s, ctxA, bare)
	got := getPair(t, s, ctxA, "at-2")
	if got.MemberID != 0 || len(got.Scopes) != 0 || got.RefreshExpiresAt != nil || got.RefreshSignature != "rt-2" || got.ID != bareCreated.ID {
		t.Errorf("bare pair %+v", got)
	}
	mustPair(t, s, ctxA, storage.TokenPair{RequestID: "r3", ClientID: "app", AccessSignature: "at-3", AccessExpiresAt: at(1, 9)})
	if got := getPair(t, s, ctxA, "at-3"); got.RefreshSignature != "" || got.RefreshExpiresAt != nil {
		t.Errorf("a pair stored without a refresh token has one: %+v", got)
	}
	_, err = s.CreateTokenPair(ctxA, storage.TokenPair{RequestID: "r3", ClientID: "app", AccessSignature: "at-3b", RefreshSignature: "rt-1", AccessExpiresAt: at(1, 9)})
	wantErr(t, "CreateTokenPair with another pair's refresh signature", err, storage.ErrAlreadyExists)

	// Refreshed pairs name the pair they replace, which must be of the same grant.
	next := pairOf("app", "r1", "1b", member)
	next.ReplacesPairID = created.ID
	nextCreated := mustPair(t, s, ctxA, next)
	if got := getPair(t, s, ctxA, "at-1b"); got.ReplacesPairID != created.ID || got.ID != nextCreated.ID {
		t.Errorf("refreshed pair replaces %d, want %d", got.ReplacesPairID, created.ID)
	}
	cross := pairOf("app", "r2", "x", member)
	cross.ReplacesPairID = created.ID
	_, err = s.CreateTokenPair(ctxA, cross)
	wantErr(t, "CreateTokenPair replacing a pair of another grant", err, storage.ErrNotFound)
	cross.RequestID, cross.ReplacesPairID = "r1", nextCreated.ID+1000
	_, err = s.CreateTokenPair(ctxA, cross)
	wantErr(t, "CreateTokenPair replacing an unknown pair", err, storage.ErrNotFound)

	_, err = s.CreateTokenPair(ctxA, pairOf("app", "r4", "1", member))
	wantErr(t, "CreateTokenPair with a taken access signature", err, storage.ErrAlreadyExists)
	_, err = s.CreateTokenPair(ctxA, pairOf("app", "r4", "4", member+1000))
	wantErr(t, "CreateTokenPair for an unknown member", err, storage.ErrNotFound)
	badScope := pairOf("app", "r4", "5", member)
	badScope.Scopes = []string{"account:read openid"}
	_, err = s.CreateTokenPair(ctxA, badScope)
	wantErr(t, "CreateTokenPair with a scope holding a space", err, storage.ErrInvalidArgument)
	noSig := pairOf("app", "r4", "6", member)
	noSig.AccessSignature = ""
	_, err = s.CreateTokenPair(ctxA, noSig)
	wantErr(t, "CreateTokenPair without an access signature", err, storage.ErrInvalidArgument)

	_, err = s.GetTokenPair(ctxA, storage.AccessToken, "nope")
	wantErr(t, "GetTokenPair of an unknown signature", err, storage.ErrNotFound)
	_, err = s.GetTokenPair(ctxA, storage.TokenKind(7), "at-1")
	wantErr(t, "GetTokenPair of an unknown kind", err, storage.ErrInvalidArgument)
	// A signature is looked up as the kind it is presented as only.
	_, err = s.GetTokenPair(ctxA, storage.RefreshToken, "at-1")
	wantErr(t, "GetTokenPair of an access signature as a refresh token", err, storage.ErrNotFound)
}

// refreshOf is p as the refresh of the pair replaced.
func refreshOf(p storage.TokenPair, replaced int64) storage.TokenPair {
	p.ReplacesPairID = replaced
	return p
}

// testRefreshPair: a refresh stores the new pair, both halves at once, as the child of a live pair
// of the same grant; a revoked, unknown or foreign pair buys nothing.
func testRefreshPair(t *testing.T, s storage.Store) {
	ctxA, _, member := oauthSetup(t, s)
	root := mustPair(t, s, ctxA, pairOf("app", "r1", "1", member))
	next := refreshOf(pairOf("app", "r1", "2", member), root.ID)
	created, err := s.RefreshPair(ctxA, next)
	must(t, "RefreshPair", err)
	wantStoredPair(t, s, ctxA, "RefreshPair", created, next)
	if getPair(t, s, ctxA, "at-1").RevokedAt != nil {
		t.Error("a refresh revoked the pair it replaces (that is the first use's step)")
	}
	// Until its successor is used, a pair may be refreshed again (a retry, or a fork).
	_, err = s.RefreshPair(ctxA, refreshOf(pairOf("app", "r1", "3", member), root.ID))
	must(t, "RefreshPair of the same pair again", err)

	other := mustPair(t, s, ctxA, pairOf("app", "r2", "4", member))
	revoked := pairOf("app", "r3", "5", member)
	revoked.RevokedAt = ptr(at(2, 0))
	gone := mustPair(t, s, ctxA, revoked)
	for what, p := range map[string]storage.TokenPair{
		"replacing a pair of another grant": refreshOf(pairOf("app", "r1", "6", member), other.ID),
		"replacing an unknown pair":         refreshOf(pairOf("app", "r1", "7", member), other.ID+1000),
		"replacing a revoked pair":          refreshOf(pairOf("app", "r3", "8", member), gone.ID),
	} {
		_, err := s.RefreshPair(ctxA, p)
		wantErr(t, "RefreshPair "+what, err, storage.ErrNotFound)
		_, err = s.GetTokenPair(ctxA, storage.AccessToken, p.AccessSignature)
		wantErr(t, "the pair of a refused refresh "+what, err, storage.ErrNotFound)
	}
	_, err = s.RefreshPair(ctxA, pairOf("app", "r1", "9", member))
	wantErr(t, "RefreshPair replacing no pair", err, storage.ErrInvalidArgument)
	_, err = s.RefreshPair(ctxA, refreshOf(pairOf("app", "r1", "2", member), root.ID))
	wantErr(t, "RefreshPair with a taken access signature", err, storage.ErrAlreadyExists)
}

func testRevokeGrant(t *testing.T, s storage.Store) {
	ctxA, _, member := oauthSetup(t, s)
	earlier, when := at(3, 0), at(4, 0)
	first := pairOf("app", "g", "1", member)
	first.RevokedAt = ptr(earlier)
	p1 := mustPair(t, s, ctxA, first)
	second := pairOf("app", "g", "2", member)
	second.ReplacesPairID = p1.ID
	p2 := mustPair(t, s, ctxA, second)
	third := pairOf("app", "g", "3", member)
	third.ReplacesPairID = p2.ID
	p3 := mustPair(t, s, ctxA, third)
	other := mustPair(t, s, ctxA, pairOf("app", "other", "4", member))
	must(t, "CreateCodeGrant", s.CreateCodeGrant(ctxA, storage.CodeGrant{Code: codeOf("app", "g", "code-g", member)}))
	must(t, "CreateCodeGrant", s.CreateCodeGrant(ctxA, storage.CodeGrant{Code: codeOf("app", "other", "code-other", member)}))

	n, err := s.RevokeGrant(ctxA, "g", when)
	must(t, "RevokeGrant", err)
	if n != 2 {
		t.Errorf("RevokeGrant revoked %d pairs, want 2", n)
	}
	if got := getPair(t, s, ctxA, p1.AccessSignature); got.RevokedAt == nil || !got.RevokedAt.Equal(earlier) {
		t.Errorf("a pair revoked before keeps its stamp: %v, want %v", got.RevokedAt, earlier)
	}
	for _, p := range []storage.TokenPair{p2, p3} {
		if got := getPair(t, s, ctxA, p.AccessSignature); got.RevokedAt == nil || !got.RevokedAt.Equal(when) {
			t.Errorf("pair %s revoked at %v, want %v", p.AccessSignature, got.RevokedAt, when)
		}
	}
	if got := getPair(t, s, ctxA, other.AccessSignature); got.RevokedAt != nil {
		t.Error("another grant's pair was revoked")
	}
	if c := getCode(t, s, ctxA, "code-g").Code; c.Active {
		t.Errorf("the grant's code after RevokeGrant: %+v", c)
	}
	if c := getCode(t, s, ctxA, "code-other").Code; !c.Active {
		t.Errorf("another grant's code after RevokeGrant: %+v", c)
	}

	n, err = s.RevokeGrant(ctxA, "g", at(5, 0))
	must(t, "RevokeGrant again", err)
	if n != 0 {
		t.Errorf("second RevokeGrant revoked %d pairs", n)
	}
	n, err = s.RevokeGrant(ctxA, "unknown", when)
	must(t, "RevokeGrant of an unknown grant", err)
	if n != 0 {
		t.Errorf("RevokeGrant of an unknown grant revoked %d pairs", n)
	}

	// After a revocation, a refresh of one of its pairs stores nothing.
	next := pairOf("app", "g", "5", member)
	next.ReplacesPairID = p3.ID
	_, err = s.RefreshPair(ctxA, next)
	wantErr(t, "RefreshPair after RevokeGrant", err, storage.ErrNotFound)
	_, err = s.GetTokenPair(ctxA, storage.AccessToken, next.AccessSignature)
	wantErr(t, "the pair of a refused refresh", err, storage.ErrNotFound)
}

// testTokenPairGrant: the school and sign-in methods the authorization server records on a pair
// are read back with it, by either signature and after it is revoked, in their own fields; a pair
// without them reads as no school and no methods.
func testTokenPairGrant(t *testing.T, s storage.Store) {
	ctxA, _, member := oauthSetup(t, s)

	p := pairOf("app", "r1", "1", member)
	p.SchoolID, p.AMR = 42, []string{"pwd", "otp", "mfa"}
	created := mustPair(t, s, ctxA, p)
	wantStoredPair(t, s, ctxA, "CreateTokenPair", created, p)

	// A refreshed pair carries what it was given, not what the pair it replaces holds.
	next := pairOf("app", "r1", "2", member)
	next.ReplacesPairID, next.SchoolID, next.AMR = created.ID, 42, []string{"pwd"}
	mustPair(t, s, ctxA, next)
	if got := getPair(t, s, ctxA, "at-2"); got.SchoolID != 42 || len(got.AMR) != 1 || got.AMR[0] != "pwd" {
		t.Errorf("refreshed pair: school %d, amr %q", got.SchoolID, got.AMR)
	}

	// Revoking, and retiring a replaced pair, leave both fields alone.
	_, err := s.RetireReplaced(ctxA, getPair(t, s, ctxA, "at-2").ID, at(2, 0))
	must(t, "RetireReplaced", err)
	if got := getPair(t, s, ctxA, "at-1"); got.RevokedAt == nil || got.SchoolID != 42 || len(got.AMR) != 3 {
		t.Errorf("retired pair: revoked %v, school %d, amr %q", got.RevokedAt, got.SchoolID, got.AMR)
	}

	// Neither given: no school, no methods.
	bare := pairOf("app", "r2", "3", member)
	mustPair(t, s, ctxA, bare)
	if got := getPair(t, s, ctxA, "at-3"); got.SchoolID != 0 || got.AMR != nil {
		t.Errorf("pair without a school or methods: school %d, amr %q", got.SchoolID, got.AMR)
	}

	for name, bad := range map[string]func(*storage.TokenPair){
		"a method holding a space": func(p *storage.TokenPair) { p.AMR = []string{"pwd otp"} },
		"an empty method":          func(p *storage.TokenPair) { p.AMR = []string{"pwd", ""} },
		"a negative school":        func(p *storage.TokenPair) { p.SchoolID = -1 },
	} {
		p := pairOf("app", "r3", "bad", member)
		bad(&p)
		_, err := s.CreateTokenPair(ctxA, p)
		wantErr(t, "CreateTokenPair with "+name, err, storage.ErrInvalidArgument)
	}
}

func testRetireReplaced(t *testing.T, s storage.Store) {
	ctxA, _, member := oauthSetup(t, s)
	p1 := mustPair(t, s, ctxA, pairOf("app", "g", "1", member))
	next := pairOf("app", "g", "2", member)
	next.ReplacesPairID = p1.ID
	p2 := mustPair(t, s, ctxA, next)

	// The code exchange's pair replaces nothing: its first use revokes nothing.
	first, err := s.RetireReplaced(ctxA, p1.ID, at(2, 0))
	must(t, "RetireReplaced", err)
	if !first {
		t.Error("RetireReplaced of an unused pair is not the first")
	}
	got := getPair(t, s, ctxA, p1.AccessSignature)
	if got.FirstUsedAt == nil || !got.FirstUsedAt.Equal(at(2, 0)) || got.RevokedAt != nil {
		t.Errorf("pair after its first use: first used %v, revoked %v", got.FirstUsedAt, got.RevokedAt)
	}
	first, err = s.RetireReplaced(ctxA, p1.ID, at(3, 0))
	must(t, "RetireReplaced again", err)
	if first {
		t.Error("the second use of a pair is reported first")
	}
	if got := getPair(t, s, ctxA, p1.AccessSignature); !got.FirstUsedAt.Equal(at(2, 0)) {
		t.Errorf("the second use moved first_used_at to %v", got.FirstUsedAt)
	}

	// The refreshed pair's first use revokes the pair it replaced, and only that one.
	first, err = s.RetireReplaced(ctxA, p2.ID, at(4, 0))
	must(t, "RetireReplaced of the refreshed pair", err)
	if !first {
		t.Error("the refreshed pair's first use is not the first")
	}
	if got := getPair(t, s, ctxA, p1.AccessSignature); got.RevokedAt == nil || !got.RevokedAt.Equal(at(4, 0)) {
		t.Errorf("replaced pair revoked at %v, want %v", got.RevokedAt, at(4, 0))
	}
	if got := getPair(t, s, ctxA, p2.AccessSignature); got.RevokedAt != nil || got.FirstUsedAt == nil {
		t.Errorf("refreshed pair after its first use: %+v", got)
	}

	_, err = s.RetireReplaced(ctxA, p2.ID+1000, at(4, 0))
	wantErr(t, "RetireReplaced of an unknown pair", err, storage.ErrNotFound)
}

// grantTree stores a grant's pairs: the root (the code exchange's pair) and one pair per edge
// of the tree, each replacing its parent (a refresh). Pairs are named by their signatures'
// suffix, prefixed with the grant's request id.
func grantTree(t *testing.T, s storage.Store, ctx context.Context, rid string, member int64, root string, edges ...[2]string) map[string]storage.TokenPair {
	t.Helper()
	pairs := map[string]storage.TokenPair{root: mustPair(t, s, ctx, pairOf("app", rid, rid+"-"+root, member))}
	for _, e := range edges {
		next := pairOf("app", rid, rid+"-"+e[1], member)
		next.ReplacesPairID = pairs[e[0]].ID
		pairs[e[1]] = mustPair(t, s, ctx, next)
	}
	return pairs
}

// wantLive checks which pairs of a grant are live (not revoked).
func wantLive(t *testing.T, s storage.Store, ctx context.Context, what string, pairs map[string]storage.TokenPair, live ...string) {
	t.Helper()
	isLive := map[string]bool{}
	for _, n := range live {
		isLive[n] = true
	}
	for n, p := range pairs {
		got := getPair(t, s, ctx, p.AccessSignature)
		if (got.RevokedAt == nil) != isLive[n] {
			t.Errorf("%s: pair %s revoked at %v, want live=%v", what, n, got.RevokedAt, isLive[n])
		}
	}
}

// testFirstUseRetiresForks: two refreshes of one refresh token fork the grant; the first use
// of either new access token retires the other line, whatever was minted from it since, and
// the pair both replaced. The pairs minted from the used one stay live, and so do the pairs
// above the replaced one (the retry rule).
func testFirstUseRetiresForks(t *testing.T, s storage.Store) {
	ctxA, _, member := oauthSetup(t, s)
	// root -> a -> a2 (a refreshed before a's access token was used), root -> b -> b2.
	edges := [][2]string{{"root", "a"}, {"root", "b"}, {"a", "a2"}, {"b", "b2"}}
	for _, order := range [][2]string{{"a", "b"}, {"b", "a"}} {
		used, other := order[0], order[1]
		rid := "fork-" + used
		pairs := grantTree(t, s, ctxA, rid, member, "root", edges...)

		first, err := s.RetireReplaced(ctxA, pairs[used].ID, at(3, 0))
		must(t, "RetireReplaced of "+used, err)
		if !first {
			t.Errorf("%s first: not reported first", used)
		}
		wantLive(t, s, ctxA, used+" used first", pairs, used, used+"2")
		if got := getPair(t, s, ctxA, pairs["root"].AccessSignature); !got.RevokedAt.Equal(at(3, 0)) {
			t.Errorf("%s first: the replaced pair revoked at %v, want %v", used, got.RevokedAt, at(3, 0))
		}

		// The other line's access token is then no live pair: nothing changes.
		first, err = s.RetireReplaced(ctxA, pairs[other].ID, at(4, 0))
		wantErr(t, "RetireReplaced of the retired sibling "+other, err, storage.ErrNotFound)
		if first {
			t.Errorf("%s after %s: reported first", other, used)
		}
		wantLive(t, s, ctxA, other+" presented after "+used, pairs, used, used+"2")
		if got := getPair(t, s, ctxA, pairs[other].AccessSignature); got.FirstUsedAt != nil {
			t.Errorf("the retired sibling %s was marked used at %v", other, got.FirstUsedAt)
		}
	}

	// A fork further up: g was refreshed into p, p's access token never used, and g refreshed
	// again into q; p was then refreshed into x. The first use of x retires p only: g's refresh
	// token still works (p's access token was never used: the retry rule), and so q, minted
	// from g, is left to the first use of one of g's children.
	pairs := grantTree(t, s, ctxA, "fork-up", member, "g", [2]string{"g", "p"}, [2]string{"g", "q"}, [2]string{"p", "x"})
	_, err := s.RetireReplaced(ctxA, pairs["x"].ID, at(5, 0))
	must(t, "RetireReplaced of x", err)
	wantLive(t, s, ctxA, "x used", pairs, "g", "q", "x")

	// Another grant of the same member and client is untouched.
	other := grantTree(t, s, ctxA, "fork-other", member, "root", [2]string{"root", "a"}, [2]string{"root", "b"})
	_, err = s.RetireReplaced(ctxA, pairs["p"].ID, at(6, 0))
	wantErr(t, "RetireReplaced of a retired pair", err, storage.ErrNotFound)
	wantLive(t, s, ctxA, "another grant", other, "root", "a", "b")
}

// testConcurrentForkUse presents both new access tokens of a forked grant many times at once.
// Exactly one presentation is the first; every presentation of that token succeeds, every
// presentation of its sibling finds no live pair, and afterwards exactly that line is live.
func testConcurrentForkUse(t *testing.T, s storage.Store) {
	ctxA, _, member := oauthSetup(t, s)
	const perSibling = 6
	for round := range 5 {
		rid := fmt.Sprintf("fork-race-%d", round)
		pairs := grantTree(t, s, ctxA, rid, member, "root", [2]string{"root", "a"}, [2]string{"root", "b"})
		var (
			mu       sync.Mutex
			firsts   []string
			ok, gone = map[string]int{}, map[string]int{}
		)
		atOnce(2*perSibling, func(i int) {
			name := []string{"a", "b"}[i%2]
			first, err := s.RetireReplaced(ctxA, pairs[name].ID, at(5, 0))
			mu.Lock()
			defer mu.Unlock()
			switch {
			case errors.Is(err, storage.ErrNotFound):
				gone[name]++
			case err != nil:
				t.Errorf("round %d: RetireReplaced(%s): %v", round, name, err)
			default:
				ok[name]++
				if first {
					firsts = append(firsts, name)
				}
			}
		})
		if len(firsts) != 1 {
			t.Fatalf("round %d: first uses %v, want exactly one", round, firsts)
		}
		won, lost := firsts[0], map[string]string{"a": "b", "b": "a"}[firsts[0]]
		if ok[won] != perSibling || gone[won] != 0 || ok[lost] != 0 || gone[lost] != perSibling {
			t.Errorf("round %d: %s won; live answers %v, no-live-pair answers %v", round, won, ok, gone)
		}
		wantLive(t, s, ctxA, fmt.Sprintf("round %d", round), pairs, won)
	}
}

// testConcurrentFirstUse presents a refreshed pair's access token many times at once: exactly
// one presentation is the first, and the replaced pair is revoked.
func testConcurrentFirstUse(t *testing.T, s storage.Store) {
	ctxA, _, member := oauthSetup(t, s)
	const racers = 20
	for round := range 3 {
		rid := fmt.Sprintf("g%d", round)
		old, p := refreshedPair(t, s, ctxA, rid, member)

		var (
			mu     sync.Mutex
			firsts int
		)
		atOnce(racers, func(i int) {
			first, err := s.RetireReplaced(ctxA, p.ID, at(5, i%24))
			if err != nil {
				t.Errorf("RetireReplaced: %v", err)
				return
			}
			if first {
				mu.Lock()
				firsts++
				mu.Unlock()
			}
		})
		if firsts != 1 {
			t.Errorf("round %d: %d of %d concurrent uses were the first, want 1", round, firsts, racers)
		}
		if got := getPair(t, s, ctxA, old.AccessSignature); got.RevokedAt == nil {
			t.Errorf("round %d: the replaced pair is live after the new pair's first use", round)
		}
		if got := getPair(t, s, ctxA, p.AccessSignature); got.RevokedAt != nil || got.FirstUsedAt == nil {
			t.Errorf("round %d: used pair %+v", round, got)
		}
	}
}

// testFirstUseRevokeRace runs first uses of a refreshed pair and a revocation of its grant at
// once. Both write both pairs of the grant; neither may fail (as a deadlock would make one), and
// afterwards every pair is revoked.
func testFirstUseRevokeRace(t *testing.T, s storage.Store) {
	ctxA, _, member := oauthSetup(t, s)
	for round := range 10 {
		rid := fmt.Sprintf("g%d", round)
		old, p := refreshedPair(t, s, ctxA, rid, member)

		atOnce(4, func(i int) {
			if i == round%4 {
				if _, err := s.RevokeGrant(ctxA, rid, at(6, 0)); err != nil {
					t.Errorf("round %d: RevokeGrant: %v", round, err)
				}
				return
			}
			// After the revocation the pair is no longer live: ErrNotFound, and nothing
			// changes.
			if _, err := s.RetireReplaced(ctxA, p.ID, at(5, 0)); err != nil && !errors.Is(err, storage.ErrNotFound) {
				t.Errorf("round %d: RetireReplaced: %v", round, err)
			}
		})
		for _, sig := range []string{old.AccessSignature, p.AccessSignature} {
			if got := getPair(t, s, ctxA, sig); got.RevokedAt == nil {
				t.Errorf("round %d: pair %s survived the revocation", round, sig)
			}
		}
	}
}

// testRefreshRevokeRace runs a refresh and a revocation of one grant at once, many times: in
// every interleaving, no pair of the grant may survive the revocation, the new pair included.
func testRefreshRevokeRace(t *testing.T, s storage.Store) {
	ctxA, _, member := oauthSetup(t, s)
	const rounds = 20
	refreshed := 0
	for round := range rounds {
		rid := fmt.Sprintf("race-%d", round)
		old := mustPair(t, s, ctxA, pairOf("app", rid, rid+"-1", member))
		newSig := rid + "-2"

		var did bool
		atOnce(2, func(i int) {
			if i == 0 { // the refresh, as fosite runs it
				did = refresh(t, s, ctxA, old, pairOf("app", rid, newSig, member))
				return
			}
			// The revocation. Staggered starts vary the interleaving, so that it also arrives
			// while the refresh holds the lock, not only before it takes it.
			time.Sleep(time.Duration(round%4) * 300 * time.Microsecond)
			if _, err := s.RevokeGrant(ctxA, rid, at(6, 0)); err != nil {
				t.Errorf("round %d: RevokeGrant: %v", round, err)
			}
		})
		if did {
			refreshed++
		}

		for _, sig := range []string{old.AccessSignature, "at-" + newSig} {
			p, err := s.GetTokenPair(ctxA, storage.AccessToken, sig)
			if errors.Is(err, storage.ErrNotFound) && sig != old.AccessSignature && !did {
				continue // the refresh came second and issued nothing
			}
			if err != nil {
				t.Errorf("round %d: GetTokenPair(%s): %v", round, sig, err)
				continue
			}
			if p.RevokedAt == nil {
				t.Errorf("round %d: pair %s survived the revocation (refresh issued: %v)", round, sig, did)
			}
		}
	}
	t.Logf("%d of %d refreshes went first", refreshed, rounds)
}

// refresh stores old's successor as the token endpoint does, in a transaction of its own, and
// reports whether it stored it.
func refresh(t *testing.T, s storage.Store, ctx context.Context, old, next storage.TokenPair) bool {
	tx, err := s.BeginTx(ctx)
	if err != nil {
		t.Errorf("BeginTx: %v", err)
		return false
	}
	next.ReplacesPairID = old.ID
	_, err = s.RefreshPair(tx, next)
	if err != nil {
		if !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("refresh: RefreshPair: %v", err)
		}
		// Revoked first: the refresh is refused and issues nothing.
		if err := s.Rollback(tx); err != nil {
			t.Errorf("refresh: Rollback: %v", err)
		}
		return false
	}
	if err := s.Commit(tx); err != nil {
		t.Errorf("refresh: Commit: %v", err)
		return false
	}
	return true
}

// atOnce runs call(0) to call(n-1) in goroutines released together, and returns when every one
// has returned: the concurrent calls a store must serialise.
func atOnce(n int, call func(i int)) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			call(i)
		}()
	}
	close(start)
	wg.Wait()
}

// exactlyOneWins runs call from racers goroutines released at once and fails the test unless
// exactly one returns nil and every other storage.ErrNotFound: the store, not luck, decides
// which single use of a one-time thing succeeds.
func exactlyOneWins(t *testing.T, what string, racers int, call func() error) {
	t.Helper()
	var (
		mu         sync.Mutex
		won, lost  int
		unexpected []error
	)
	atOnce(racers, func(int) {
		err := call()
		mu.Lock()
		defer mu.Unlock()
		switch {
		case err == nil:
			won++
		case errors.Is(err, storage.ErrNotFound):
			lost++
		default:
			unexpected = append(unexpected, err)
		}
	})
	if won != 1 || lost != racers-1 || len(unexpected) > 0 {
		t.Errorf("%s: %d won, %d lost, errors %v; want exactly one winner", what, won, lost, unexpected)
	}
}
