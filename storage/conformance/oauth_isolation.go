package conformance

import (
	"testing"
	"time"

	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
)

// testOAuthSchoolIsolation gives school B a client, code, PKCE and OpenID Connect records, a
// grant, a signing key and a login session, and checks that none of them can be read, changed or
// revoked at school A.
func testOAuthSchoolIsolation(t *testing.T, s storage.Store) {
	ctxA, ctxB, member := oauthSetup(t, s)
	_, err := s.CreateClient(ctxB, publicClient("client-b"))
	must(t, "CreateClient at B", err)
	recordB := &storage.GrantSession{RequestID: "req-b", Data: []byte("{}"), ExpiresAt: at(1, 9)}
	must(t, "CreateCodeGrant at B", s.CreateCodeGrant(ctxB, storage.CodeGrant{Code: codeOf("client-b", "req-b", "code-b", member), PKCE: recordB, OIDC: recordB}))
	pairB := mustPair(t, s, ctxB, pairOf("client-b", "req-b", "b", member))
	must(t, "CreateSigningKey at B", s.CreateSigningKey(ctxB, signingKey("kid-b", 1)))
	must(t, "CreateLoginSession at B", s.CreateLoginSession(ctxB, storage.LoginSession{ID: "login-b", MemberID: member, CreatedAt: at(1, 0), ExpiresAt: at(20, 0)}))
	// A grant id both schools happen to use.
	sharedA := mustPair(t, s, ctxA, pairOf("client-a", "req-shared", "shared-a", member))
	sharedB := mustPair(t, s, ctxB, pairOf("client-b", "req-shared", "shared-b", member))
	when := at(8, 0)

	_, err = s.GetClient(ctxA, "client-b")
	wantErr(t, "GetClient of B's client at A", err, storage.ErrNotFound)
	clients, _, err := s.ListClients(ctxA, "", storage.Page{})
	must(t, "ListClients", err)
	if len(clients) != 0 {
		t.Errorf("school A lists %d clients", len(clients))
	}
	wantErr(t, "DeleteClient of B's client at A", s.DeleteClient(ctxA, "client-b", when), storage.ErrNotFound)

	_, err = s.GetCodeGrant(ctxA, "code-b")
	wantErr(t, "GetCodeGrant of B's code at A", err, storage.ErrNotFound)
	_, err = s.ExchangeCode(ctxA, "code-b", pairOf("client-a", "req-b", "exchange", member))
	wantErr(t, "ExchangeCode of B's code at A", err, storage.ErrNotFound)
	for _, kind := range []storage.SessionKind{storage.SessionPKCE, storage.SessionOIDC} {
		wantErr(t, "DeleteGrantSession of B's record at A", s.DeleteGrantSession(ctxA, kind, "code-b"), storage.ErrNotFound)
	}

	_, err = s.GetTokenPair(ctxA, storage.AccessToken, pairB.AccessSignature)
	wantErr(t, "GetTokenPair of B's access token at A", err, storage.ErrNotFound)
	_, err = s.GetTokenPair(ctxA, storage.RefreshToken, "rt-b")
	wantErr(t, "GetTokenPair of B's refresh token at A", err, storage.ErrNotFound)
	n, err := s.RevokeGrant(ctxA, "req-b", when)
	must(t, "RevokeGrant of B's grant at A", err)
	if n != 0 {
		t.Errorf("RevokeGrant of B's grant at A revoked %d pairs", n)
	}
	_, err = s.RetireReplaced(ctxA, pairB.ID, when)
	wantErr(t, "RetireReplaced of B's pair at A", err, storage.ErrNotFound)
	steal := pairOf("client-a", "req-b", "steal", member)
	steal.ReplacesPairID = pairB.ID
	_, err = s.CreateTokenPair(ctxA, steal)
	wantErr(t, "CreateTokenPair at A replacing B's pair", err, storage.ErrNotFound)
	_, err = s.RefreshPair(ctxA, steal)
	wantErr(t, "RefreshPair at A replacing B's pair", err, storage.ErrNotFound)
	n, err = s.RevokeGrant(ctxA, "req-shared", when)
	must(t, "RevokeGrant of a grant id both schools use", err)
	if n != 1 {
		t.Errorf("RevokeGrant at A of a shared grant id revoked %d pairs, want A's 1", n)
	}
	if got := getPair(t, s, ctxA, sharedA.AccessSignature); got.RevokedAt == nil {
		t.Error("A's pair of the shared grant id is live")
	}

	keys, err := s.ListSigningKeys(ctxA)
	must(t, "ListSigningKeys", err)
	if len(keys) != 0 {
		t.Errorf("school A lists %d signing keys", len(keys))
	}
	wantErr(t, "RetireSigningKey of B's key at A", s.RetireSigningKey(ctxA, "kid-b", when), storage.ErrNotFound)

	_, _, err = s.GetLoginSession(ctxA, "login-b")
	wantErr(t, "GetLoginSession of B's session at A", err, storage.ErrNotFound)
	wantErr(t, "TouchLoginSession of B's session at A", s.TouchLoginSession(ctxA, "login-b", when), storage.ErrNotFound)
	wantErr(t, "DeleteLoginSession of B's session at A", s.DeleteLoginSession(ctxA, "login-b"), storage.ErrNotFound)

	// School B's data is untouched by all of the above.
	if _, err := s.GetClient(ctxB, "client-b"); err != nil {
		t.Errorf("B's client: %v", err)
	}
	if g, err := s.GetCodeGrant(ctxB, "code-b"); err != nil || !g.Code.Active || g.PKCE == nil || g.OIDC == nil {
		t.Errorf("B's code: %+v, %v", g, err)
	}
	for _, sig := range []string{pairB.AccessSignature, sharedB.AccessSignature} {
		got := getPair(t, s, ctxB, sig)
		if got.RevokedAt != nil || got.FirstUsedAt != nil {
			t.Errorf("B's pair %s: %+v", sig, got)
		}
	}
	if got := getPair(t, s, ctxB, pairB.AccessSignature); got.RefreshSignature != "rt-b" {
		t.Errorf("B's refresh token became %q", got.RefreshSignature)
	}
	keys, err = s.ListSigningKeys(ctxB)
	must(t, "ListSigningKeys at B", err)
	if len(keys) != 1 || keys[0].RetiredAt != nil {
		t.Errorf("B's keys: %+v", keys)
	}
	if ls, _, err := s.GetLoginSession(ctxB, "login-b"); err != nil || !ls.LastSeenAt.Before(when) {
		t.Errorf("B's login session: %+v, %v", ls, err)
	}
}

// testOAuthNoSchool calls every school-scoped method of the OAuth interfaces without a school.
// The transaction methods and PurgeExpired are not school-scoped.
func testOAuthNoSchool(t *testing.T, s storage.Store) {
	_, _, member := oauthSetup(t, s)
	ctx := t.Context()
	now := time.Now()
	noop := func(c storage.Client) (storage.Client, error) { return c, nil }
	calls := map[string]func() error{
		"CreateClient": func() error { _, err := s.CreateClient(ctx, publicClient("c")); return err },
		"GetClient":    func() error { _, err := s.GetClient(ctx, "c"); return err },
		"ListClients":  func() error { _, _, err := s.ListClients(ctx, "", storage.Page{}); return err },
		"UpdateClient": func() error { _, err := s.UpdateClient(ctx, "c", noop); return err },
		"DeleteClient": func() error { return s.DeleteClient(ctx, "c", now) },
		"CreateCodeGrant": func() error {
			return s.CreateCodeGrant(ctx, storage.CodeGrant{Code: codeOf("c", "r", "code", member)})
		},
		"GetCodeGrant":       func() error { _, err := s.GetCodeGrant(ctx, "code"); return err },
		"ExchangeCode":       func() error { _, err := s.ExchangeCode(ctx, "code", pairOf("c", "r", "1", member)); return err },
		"DeleteGrantSession": func() error { return s.DeleteGrantSession(ctx, storage.SessionPKCE, "s") },
		"CreateTokenPair":    func() error { _, err := s.CreateTokenPair(ctx, pairOf("c", "r", "1", member)); return err },
		"GetTokenPair":       func() error { _, err := s.GetTokenPair(ctx, storage.AccessToken, "at-1"); return err },
		"RefreshPair":        func() error { _, err := s.RefreshPair(ctx, refreshOf(pairOf("c", "r", "1", member), 1)); return err },
		"RevokeGrant":        func() error { _, err := s.RevokeGrant(ctx, "r", now); return err },
		"RetireReplaced":     func() error { _, err := s.RetireReplaced(ctx, 1, now); return err },
		"CreateSigningKey":   func() error { return s.CreateSigningKey(ctx, signingKey("k", 1)) },
		"ListSigningKeys":    func() error { _, err := s.ListSigningKeys(ctx); return err },
		"RetireSigningKey":   func() error { return s.RetireSigningKey(ctx, "k", now) },
		"CreateLoginSession": func() error {
			return s.CreateLoginSession(ctx, storage.LoginSession{ID: "l", MemberID: member, ExpiresAt: now})
		},
		"GetLoginSession":    func() error { _, _, err := s.GetLoginSession(ctx, "l"); return err },
		"TouchLoginSession":  func() error { return s.TouchLoginSession(ctx, "l", now) },
		"DeleteLoginSession": func() error { return s.DeleteLoginSession(ctx, "l") },
	}
	for name, call := range calls {
		wantErr(t, name, call(), school.ErrNoSchool)
	}
	// Refused inside a transaction too, and the transaction methods themselves need no school.
	tx, err := s.BeginTx(ctx)
	must(t, "BeginTx without a school", err)
	_, err = s.RefreshPair(tx, refreshOf(pairOf("c", "r", "1", member), 1))
	wantErr(t, "RefreshPair in a transaction without a school", err, school.ErrNoSchool)
	must(t, "Rollback", s.Rollback(tx))
	if _, err := s.PurgeExpired(ctx, now, 10); err != nil {
		t.Errorf("PurgeExpired without a school: %v", err)
	}
}
