package authz_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/server/servertest"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage"
)

// TestAuthorizationCodeFlow runs discover, authorize (login and consent in a browser), exchange,
// ID token verification from discovery and JWKS, userinfo and refresh with real clients.
func TestAuthorizationCodeFlow(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		ctx := oidc.ClientContext(t.Context(), http.DefaultClient)
		provider, err := oidc.NewProvider(ctx, e.a.Origin) // discovery: issuer must match exactly
		if err != nil {
			t.Fatal(err)
		}
		cfg := e.oauthConfig(e.a, publicClient, "", "openid", "profile", "email", "account:read")
		cfg.Endpoint = provider.Endpoint()
		cfg.Endpoint.AuthStyle = oauth2.AuthStyleInParams
		verifier := oauth2.GenerateVerifier()
		authURL := cfg.AuthCodeURL("state-0123456789", oauth2.S256ChallengeOption(verifier),
			oauth2.SetAuthURLParam("nonce", "nonce-0123456789"), oauth2.SetAuthURLParam("resource", e.a.Origin))

		b := e.signedIn(e.a, studentEmail)
		loc := b.consent(authURL, "approve")
		if loc.Query().Get("iss") != e.a.Origin || loc.Query().Get("state") != "state-0123456789" {
			t.Fatalf("redirect %s: want iss and state", loc)
		}
		tok, err := cfg.Exchange(ctx, loc.Query().Get("code"), oauth2.VerifierOption(verifier),
			oauth2.SetAuthURLParam("resource", e.a.Origin))
		if err != nil {
			t.Fatalf("exchange: %v", err)
		}
		if tok.TokenType != "bearer" && tok.TokenType != "Bearer" || tok.RefreshToken == "" {
			t.Fatalf("token: %+v", tok)
		}
		if sid, _ := tok.Extra("school_id").(float64); sid != 1 || tok.Extra("school_subdomain") != "north" || tok.Extra("created_at") == nil {
			t.Errorf("school fields: %v %v %v", tok.Extra("school_id"), tok.Extra("school_subdomain"), tok.Extra("created_at"))
		}
		if exp, _ := tok.Extra("expires_in").(float64); exp < 7190 || exp > 7200 {
			t.Errorf("expires_in = %v, want 7200", tok.Extra("expires_in"))
		}

		raw, _ := tok.Extra("id_token").(string)
		idt, err := provider.Verifier(&oidc.Config{ClientID: publicClient}).Verify(ctx, raw)
		if err != nil {
			t.Fatalf("id_token: %v", err)
		}
		if idt.Nonce != "nonce-0123456789" || idt.Issuer != e.a.Origin || idt.Expiry.Sub(idt.IssuedAt).Minutes() != 10 {
			t.Errorf("id_token: nonce %q issuer %q lifetime %v", idt.Nonce, idt.Issuer, idt.Expiry.Sub(idt.IssuedAt))
		}
		if err := idt.VerifyAccessToken(tok.AccessToken); err != nil {
			t.Errorf("at_hash: %v", err)
		}
		var idClaims map[string]any
		idt.Claims(&idClaims)

		res := e.Send(http.MethodGet, e.url(e.a, endpoint.Userinfo), nil, "Authorization", "Bearer "+tok.AccessToken)
		var info map[string]any
		if res.Status != 200 || !res.JSON(&info) {
			t.Fatalf("userinfo: %d %s", res.Status, res.Body)
		}
		for _, c := range []string{"sub", "email", "name", "picture", "org_id"} {
			if info[c] == nil || info[c] != idClaims[c] {
				t.Errorf("claim %s: userinfo %v, id_token %v", c, info[c], idClaims[c])
			}
		}
		if info["email"] != studentEmail || info["org_id"] != "1" || !slices.Equal(toStrings(info["roles"]), []string{"student"}) {
			t.Errorf("userinfo = %v", info)
		}
		// How the member signed in (RFC 8176): a password alone, in the ID token and UserInfo
		// alike (package mfa's tests add a second factor).
		if idClaims["amr"] == nil || !slices.Equal(toStrings(idClaims["amr"]), []string{"pwd"}) ||
			info["amr"] == nil || !slices.Equal(toStrings(info["amr"]), []string{"pwd"}) {
			t.Errorf("amr: id_token %v, userinfo %v; want [pwd]", idClaims["amr"], info["amr"])
		}

		res, tr := e.Refresh(e.a, oauthClient(publicClient), tok.RefreshToken)
		if res.Status != 200 || tr.AccessToken == "" || tr.RefreshToken == "" || tr.IDToken != "" || tr.SchoolID != 1 {
			t.Fatalf("refresh: %d %+v (an id_token must never come from a refresh)", res.Status, tr)
		}
	})
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// TestTokenPairTable has one subtest per row of the spec's token-pair state table.
func TestTokenPairTable(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		live := func(token string) bool {
			status := e.Userinfo(e.a, token)
			return status == 200
		}
		t.Run("code exchange adds a pair; earlier pairs stay live", func(t *testing.T) {
			first, second := e.tokens("account:read"), e.tokens("account:read")
			if !live(first.AccessToken) || !live(second.AccessToken) {
				t.Fatal("a second authorization revoked the first device's tokens")
			}
		})
		for _, c := range []struct {
			name string
			form func(servertest.Tokens) url.Values
		}{
			{"revoke with the refresh token revokes the pair", func(tr servertest.Tokens) url.Values {
				return url.Values{"token": {tr.RefreshToken}, "client_id": {publicClient}}
			}},
			{"revoke with a live access token revokes the pair", func(tr servertest.Tokens) url.Values {
				return url.Values{"token": {tr.AccessToken}, "client_id": {publicClient}, "token_type_hint": {"access_token"}}
			}},
		} {
			t.Run(c.name, func(t *testing.T) {
				tr := e.tokens("account:read")
				if res := e.Send(http.MethodPost, e.url(e.a, endpoint.Revoke), c.form(tr)); res.Status != 200 {
					t.Fatalf("revoke: %d", res.Status)
				}
				if live(tr.AccessToken) {
					t.Error("access token still works")
				}
				if res, r := e.Refresh(e.a, oauthClient(publicClient), tr.RefreshToken); res.Status != 400 || r.Error != "invalid_grant" {
					t.Errorf("refresh after revoke: %d %+v", res.Status, r)
				}
			})
		}
		t.Run("refresh keeps the old pair live; a lost response can be retried", func(t *testing.T) {
			tr := e.tokens("account:read")
			res, fresh := e.Refresh(e.a, oauthClient(publicClient), tr.RefreshToken)
			if res.Status != 200 {
				t.Fatalf("refresh: %d %+v", res.Status, fresh)
			}
			if !live(tr.AccessToken) {
				t.Error("the refresh revoked the old access token at issue time")
			}
			res, again := e.Refresh(e.a, oauthClient(publicClient), tr.RefreshToken)
			if res.Status != 200 || again.AccessToken == fresh.AccessToken {
				t.Fatalf("retrying the old refresh token: %d %+v", res.Status, again)
			}
		})
		t.Run("first use of the new access token revokes the old pair", func(t *testing.T) {
			tr := e.tokens("account:read")
			_, fresh := e.Refresh(e.a, oauthClient(publicClient), tr.RefreshToken)
			if !live(fresh.AccessToken) {
				t.Fatal("new access token refused")
			}
			if live(tr.AccessToken) {
				t.Error("old access token still works after the new one was used")
			}
			// Replaying the old refresh token now is reuse (docs/decisions.md): refused, and the
			// whole grant is revoked.
			if res, r := e.Refresh(e.a, oauthClient(publicClient), tr.RefreshToken); res.Status != 400 || r.Error != "invalid_grant" {
				t.Errorf("old refresh token after rotation: %d %+v", res.Status, r)
			}
			if live(fresh.AccessToken) {
				t.Error("reuse of a rotated refresh token did not revoke the grant")
			}
		})
	})
}

// TestRevokeExpiredAccessToken: the table's row where the access token is past its lifetime.
func TestRevokeExpiredAccessToken(t *testing.T) {
	e := newEnv(t, "sqlite")
	// Set before any request: access tokens of school A now live one second.
	e.a.AccessTokenLifetime = time.Second
	tr := e.tokens("account:read")
	time.Sleep(2 * time.Second) // fosite rounds expiry to the second
	if s := e.Userinfo(e.a, tr.AccessToken); s != 401 {
		t.Fatalf("the access token has not expired: %d", s)
	}
	if res := e.Revoke(e.a, oauthClient(publicClient), tr.AccessToken); res.Status != 200 {
		t.Fatalf("revoke: %d", res.Status)
	}
	if res, r := e.Refresh(e.a, oauthClient(publicClient), tr.RefreshToken); res.Status != 200 {
		t.Fatalf("refresh after revoking an expired access token: %d %+v (nothing may be revoked)", res.Status, r)
	}
}

// TestAuthorizeErrors covers the authorization endpoint's error handling: errors before the
// client and redirect URI are known are shown on a page; after, redirected with state and iss.
func TestAuthorizeErrors(t *testing.T) {
	e := newEnv(t, "sqlite")
	b := e.signedIn(e.a, studentEmail)
	p := servertest.NewPKCE()
	authorize := func(mutate func(url.Values)) *servertest.Response {
		q := servertest.AuthorizeParams(e.a, oauthClient(publicClient), p, "account:read")
		mutate(q)
		return b.authorize(e.a, q)
	}
	for name, mutate := range map[string]func(url.Values){
		"unknown client":           func(q url.Values) { q.Set("client_id", "nobody") },
		"unregistered redirect":    func(q url.Values) { q.Set("redirect_uri", "https://evil.example/cb") },
		"redirect with other path": func(q url.Values) { q.Set("redirect_uri", "http://127.0.0.1/other") },
	} {
		resp := authorize(mutate)
		if resp.Status < 400 || resp.Header.Get("Location") != "" || !strings.Contains(resp.Header.Get("Content-Type"), "text/html") {
			t.Errorf("%s: %d Location=%q: must be an HTML error page, never a redirect\n%s", name, resp.Status, resp.Header.Get("Location"), resp.Body)
		}
	}
	for name, tc := range map[string]struct {
		mutate func(url.Values)
		code   string
	}{
		"no PKCE":              {func(q url.Values) { q.Del("code_challenge"); q.Del("code_challenge_method") }, "invalid_request"},
		"plain PKCE":           {func(q url.Values) { q.Set("code_challenge_method", "plain") }, "invalid_request"},
		"no resource":          {func(q url.Values) { q.Del("resource") }, "invalid_target"},
		"foreign resource":     {func(q url.Values) { q.Set("resource", "https://evil.example") }, "invalid_target"},
		"other school":         {func(q url.Values) { q.Set("resource", e.b.Origin) }, "invalid_target"},
		"member asks operator": {func(q url.Values) { q.Set("scope", "courses:read") }, "invalid_scope"},
		"unknown scope":        {func(q url.Values) { q.Set("scope", "account:read admin") }, "invalid_scope"},
		"token response type":  {func(q url.Values) { q.Set("response_type", "token") }, "unsupported_response_type"},
		"short nonce":          {func(q url.Values) { q.Set("nonce", "x") }, "invalid_request"},
		"prompt none":          {func(q url.Values) { q.Set("prompt", "none") }, "consent_required"},
	} {
		resp := authorize(tc.mutate)
		loc, _ := url.Parse(resp.Header.Get("Location"))
		if resp.Status != http.StatusSeeOther || loc == nil || !strings.HasPrefix(loc.String(), redirectURI) {
			t.Errorf("%s: want a redirect to the client, got %d %q\n%s", name, resp.Status, resp.Header.Get("Location"), resp.Body)
			continue
		}
		q := loc.Query()
		if q.Get("error") != tc.code || q.Get("iss") != e.a.Origin || q.Get("state") == "" || q.Get("code") != "" {
			t.Errorf("%s: redirect %s, want error=%s with state and iss", name, loc, tc.code)
		}
	}
	// An operator client asking for account:read is refused (spec, Authentication 11).
	q := servertest.AuthorizeParams(e.a, oauthClient(opClient), p, "account:read")
	resp := b.authorize(e.a, q)
	if loc, _ := url.Parse(resp.Header.Get("Location")); loc == nil || loc.Query().Get("error") != "invalid_scope" {
		t.Errorf("operator client with account:read: %d %q", resp.Status, resp.Header.Get("Location"))
	}
	// Deny.
	loc := b.consent(authURL(e.a, publicClient, p, "account:read"), "deny")
	if loc.Query().Get("error") != "access_denied" || loc.Query().Get("iss") != e.a.Origin {
		t.Errorf("deny: %s", loc)
	}
}

// TestWhoMayAuthorize: no role at the school, or operator scopes without an operator role,
// gives a page that says why.
func TestWhoMayAuthorize(t *testing.T) {
	e := newEnv(t, "sqlite")
	p := servertest.NewPKCE()
	for _, tc := range []struct {
		email, client, scope string
		want                 int
	}{
		{outsiderEmail, publicClient, "account:read", http.StatusForbidden},
		{studentEmail, opClient, "courses:read", http.StatusForbidden},
		{operatorEmail, opClient, "courses:read", http.StatusOK},
		{operatorEmail, publicClient, "account:read", http.StatusOK},
	} {
		b := e.signedIn(e.a, tc.email)
		resp := b.authorize(e.a, servertest.AuthorizeParams(e.a, oauthClient(tc.client), p, tc.scope))
		if resp.Status != tc.want {
			t.Errorf("%s with %s asking %s: %d, want %d\n%s", tc.email, tc.client, tc.scope, resp.Status, tc.want, resp.Body)
		}
	}
}

// TestTokenEndpointErrors has one case per OAuth row of the spec's Errors table that the token
// endpoint answers.
func TestTokenEndpointErrors(t *testing.T) {
	e := newEnv(t, "sqlite")
	secret := e.confidential()
	fresh := func(client string) (string, servertest.PKCE) {
		return e.Code(e.a, studentEmail, oauthClient(client), "account:read")
	}
	t.Run("malformed request", func(t *testing.T) {
		code, _ := fresh(publicClient)
		form := servertest.ExchangeForm(e.a, oauthClient(publicClient), code, servertest.PKCE{})
		form.Set("code_verifier", "")
		res, tr := e.TokenRequest(e.a, form)
		if res.Status != 400 || tr.Error != "invalid_request" && tr.Error != "invalid_grant" {
			t.Errorf("missing verifier: %d %+v", res.Status, tr)
		}
	})
	t.Run("unknown grant type", func(t *testing.T) {
		res, tr := e.TokenRequest(e.a, url.Values{"grant_type": {"password"}, "client_id": {publicClient}})
		if res.Status != 400 || tr.Error != "unsupported_grant_type" {
			t.Errorf("%d %+v", res.Status, tr)
		}
	})
	t.Run("bad code", func(t *testing.T) {
		res, tr := e.Exchange(e.a, oauthClient(publicClient), "not-a-code.at-all", servertest.NewPKCE())
		if res.Status != 400 || tr.Error != "invalid_grant" {
			t.Errorf("%d %+v", res.Status, tr)
		}
	})
	t.Run("wrong verifier", func(t *testing.T) {
		code, _ := fresh(publicClient)
		res, tr := e.Exchange(e.a, oauthClient(publicClient), code, servertest.NewPKCE())
		if res.Status != 400 || tr.Error != "invalid_grant" {
			t.Errorf("%d %+v", res.Status, tr)
		}
	})
	t.Run("a code's verifier is tried once", func(t *testing.T) {
		code, p := fresh(publicClient)
		if res, tr := e.Exchange(e.a, oauthClient(publicClient), code, servertest.NewPKCE()); res.Status != 400 || tr.Error != "invalid_grant" {
			t.Fatalf("wrong verifier: %d %+v", res.Status, tr)
		}
		if res, tr := e.Exchange(e.a, oauthClient(publicClient), code, p); res.Status != 400 || tr.Error != "invalid_grant" {
			t.Errorf("the right verifier after a wrong one: %d %+v", res.Status, tr)
		}
	})
	t.Run("second use of a code revokes what the first issued", func(t *testing.T) {
		code, p := fresh(publicClient)
		_, first := e.Exchange(e.a, oauthClient(publicClient), code, p)
		res, tr := e.Exchange(e.a, oauthClient(publicClient), code, p)
		if res.Status != 400 || tr.Error != "invalid_grant" {
			t.Errorf("second use: %d %+v", res.Status, tr)
		}
		if s := e.Userinfo(e.a, first.AccessToken); s != 401 {
			t.Errorf("tokens of the first use still work: %d", s)
		}
	})
	t.Run("resource differs from the authorization", func(t *testing.T) {
		code, p := fresh(publicClient)
		form := servertest.ExchangeForm(e.a, oauthClient(publicClient), code, p)
		form.Set("resource", e.a.Origin+"/mcp")
		res, tr := e.TokenRequest(e.a, form)
		if res.Status != 400 || tr.Error != "invalid_target" {
			t.Errorf("%d %+v", res.Status, tr)
		}
	})
	t.Run("resource with a trailing slash is the origin", func(t *testing.T) {
		code, p := fresh(publicClient)
		form := servertest.ExchangeForm(e.a, oauthClient(publicClient), code, p)
		form.Set("resource", e.a.Origin+"/")
		res, tr := e.TokenRequest(e.a, form)
		if res.Status != 200 {
			t.Errorf("%d %+v", res.Status, tr)
		}
	})
	t.Run("confidential client without its secret", func(t *testing.T) {
		code, p := fresh(confClient)
		res, tr := e.Exchange(e.a, oauthClient(confClient), code, p)
		if res.Status != 401 || tr.Error != "invalid_client" {
			t.Errorf("%d %+v", res.Status, tr)
		}
	})
	t.Run("confidential client with a wrong secret", func(t *testing.T) {
		code, p := fresh(confClient)
		wrong := oauthClient(confClient)
		wrong.Secret = "wrong"
		res, tr := e.Exchange(e.a, wrong, code, p)
		if res.Status != 401 || tr.Error != "invalid_client" {
			t.Errorf("%d %+v", res.Status, tr)
		}
	})
	t.Run("confidential client with its secret", func(t *testing.T) {
		code, p := fresh(confClient)
		conf := oauthClient(confClient)
		conf.Secret = secret
		res, tr := e.Exchange(e.a, conf, code, p)
		if res.Status != 200 {
			t.Fatalf("%d %+v", res.Status, tr)
		}
		// Revocation without the secret: 403 unauthorized_client; with it: 200.
		var r servertest.Tokens
		if res := e.Revoke(e.a, oauthClient(confClient), tr.RefreshToken); res.Status != 403 || !res.JSON(&r) || r.Error != "unauthorized_client" {
			t.Errorf("revoke without secret: %d %s", res.Status, res.Body)
		}
		if res := e.Revoke(e.a, conf, tr.RefreshToken); res.Status != 200 {
			t.Errorf("revoke with secret: %d", res.Status)
		}
	})
	t.Run("public client using Basic authentication", func(t *testing.T) {
		code, p := fresh(publicClient)
		req, _ := http.NewRequest(http.MethodPost, e.url(e.a, endpoint.Token), strings.NewReader(url.Values{
			"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirectURI},
			"code_verifier": {p.Verifier}, "resource": {e.a.Origin},
		}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth(publicClient, "")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 401 {
			t.Errorf("Basic auth: %d, want 401 invalid_client", resp.StatusCode)
		}
	})
	t.Run("revoking an unknown token", func(t *testing.T) {
		if res := e.Revoke(e.a, oauthClient(publicClient), "garbage"); res.Status != 200 {
			t.Errorf("%d", res.Status)
		}
	})
	t.Run("no debug detail", func(t *testing.T) {
		_, tr := e.Exchange(e.a, oauthClient(publicClient), "x.y", servertest.NewPKCE())
		if strings.Contains(strings.ToLower(tr.ErrorDescription), "debug") || strings.Contains(tr.ErrorDescription, "sql") {
			t.Errorf("description leaks detail: %q", tr.ErrorDescription)
		}
	})
}

// TestSchoolIsolation: school A's code and tokens mean nothing at school B.
func TestSchoolIsolation(t *testing.T) {
	e := newEnv(t, "sqlite")
	code, p := e.Code(e.a, studentEmail, oauthClient(publicClient), "account:read")
	if res, tr := e.Exchange(e.b, oauthClient(publicClient), code, p); res.Status == 200 {
		t.Fatalf("school A's code exchanged at school B: %+v", tr)
	}
	// The code is still good at A (the attempt at B touched nothing).
	res, tr := e.Exchange(e.a, oauthClient(publicClient), code, p)
	if res.Status != 200 {
		t.Fatalf("exchange at A: %d %+v", res.Status, tr)
	}
	if res := e.Send(http.MethodGet, e.url(e.b, endpoint.Userinfo), nil, "Authorization", "Bearer "+tr.AccessToken); res.Status != 401 ||
		!strings.Contains(res.Header.Get("WWW-Authenticate"), e.b.Origin) {
		t.Errorf("school A's token at school B's userinfo: %d %q", res.Status, res.Header.Get("WWW-Authenticate"))
	}
	if res, r := e.Refresh(e.b, oauthClient(publicClient), tr.RefreshToken); res.Status == 200 {
		t.Errorf("school A's refresh token at school B: %+v", r)
	}
	if s := e.Userinfo(e.a, tr.AccessToken); s != 200 {
		t.Errorf("token no longer works at A: %d", s)
	}
}

// TestIDTokensOff: a school without ID tokens advertises none and issues none.
func TestIDTokensOff(t *testing.T) {
	e := newEnv(t, "sqlite")
	e.mustClient(e.b, storageClient(publicClient+"-b"))
	p := servertest.NewPKCE()
	b := e.browser()
	b.SignIn(e.b, studentEmail) // no role at B yet: give one
	schools.SetRoles(t, e.store, e.b, schools.MemberByEmail(t, e.store, studentEmail).ID, storage.RoleStudent)
	loc := b.consent(authURL(e.b, publicClient+"-b", p, "openid", "account:read"), "approve")
	res, tr := e.Exchange(e.b, oauthClient(publicClient+"-b"), loc.Query().Get("code"), p)
	if res.Status != 200 || tr.IDToken != "" || tr.SchoolID != 2 {
		t.Fatalf("exchange at B: %d id_token=%q school_id=%d", res.Status, tr.IDToken, tr.SchoolID)
	}
	resp := b.Get(e.url(e.b, "/.well-known/openid-configuration"))
	if resp.Status != 200 || strings.Contains(resp.Body, "jwks_uri") || strings.Contains(resp.Body, "id_token_signing_alg_values_supported") {
		t.Errorf("discovery at B advertises ID tokens: %s", resp.Body)
	}
	if resp := b.Get(e.url(e.b, endpoint.JWKS)); resp.Status != 404 {
		t.Errorf("JWKS at B: %d", resp.Status)
	}
}

// TestLoopbackRedirectAnyPort: a registered loopback redirect URI matches any port (RFC 8252).
func TestLoopbackRedirectAnyPort(t *testing.T) {
	e := newEnv(t, "sqlite")
	p := servertest.NewPKCE()
	q := servertest.AuthorizeParams(e.a, oauthClient(publicClient), p, "account:read")
	q.Set("redirect_uri", "http://127.0.0.1:54321/callback")
	b := e.signedIn(e.a, studentEmail)
	loc := b.consent(e.url(e.a, endpoint.Authorize)+"?"+q.Encode(), "approve")
	if loc.Host != "127.0.0.1:54321" || loc.Query().Get("code") == "" {
		t.Fatalf("redirect %s", loc)
	}
}

// TestConcurrentRefreshAndRevoke refreshes one token from many goroutines while another revokes
// the grant. Whatever order the database picks, no pair of the grant may survive the revocation.
func TestConcurrentRefreshAndRevoke(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		for round := 0; round < 5; round++ {
			tr := e.tokens("account:read")
			var wg sync.WaitGroup
			issued := make(chan string, 16)
			for i := 0; i < 8; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if res, r := e.Refresh(e.a, oauthClient(publicClient), tr.RefreshToken); res.Status == 200 {
						issued <- r.AccessToken
					} else if res.Status != 400 {
						t.Errorf("refresh: %d %+v", res.Status, r)
					}
				}()
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				if res := e.Revoke(e.a, oauthClient(publicClient), tr.RefreshToken); res.Status != 200 {
					t.Errorf("revoke: %d", res.Status)
				}
			}()
			wg.Wait()
			close(issued)
			for token := range issued {
				if s := e.Userinfo(e.a, token); s != 401 {
					t.Fatalf("round %d: a pair refreshed concurrently with the revocation survived it (%d)", round, s)
				}
			}
			if s := e.Userinfo(e.a, tr.AccessToken); s != 401 {
				t.Fatalf("round %d: the original access token survived", round)
			}
		}
	})
}

// TestConcurrentCodeExchange: of several exchanges of one code, exactly one gets tokens.
func TestConcurrentCodeExchange(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		code, p := e.Code(e.a, studentEmail, oauthClient(publicClient), "account:read")
		var wg sync.WaitGroup
		var mu sync.Mutex
		ok := 0
		for i := 0; i < 6; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if res, _ := e.Exchange(e.a, oauthClient(publicClient), code, p); res.Status == 200 {
					mu.Lock()
					ok++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if ok != 1 {
			t.Fatalf("%d exchanges of one code succeeded, want exactly 1", ok)
		}
	})
}
