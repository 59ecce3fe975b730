package authz_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/resource"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/server/servertest"
	"github.com/proctorhq/proctor/storage"
)

// TestExpiresInIsTheLifetime: expires_in is the school's access-token lifetime exactly, at the
// code exchange and at every refresh. fosite's own figure is off by one second in about half of
// all answers, so many answers are checked: the old code cannot pass them all by chance.
func TestExpiresInIsTheLifetime(t *testing.T) {
	for _, lifetime := range []time.Duration{2 * time.Hour, 15 * time.Minute} {
		e := newEnv(t, "sqlite", withAccessTokenLifetime(lifetime))
		want := int64(lifetime / time.Second)
		for i := range 3 {
			tr := e.tokens("account:read")
			if tr.ExpiresIn != want {
				t.Errorf("%s: exchange %d: expires_in %d, want %d", lifetime, i, tr.ExpiresIn, want)
			}
			for j := range 10 {
				res, next := e.Refresh(e.a, oauthClient(publicClient), tr.RefreshToken)
				if res.Status != http.StatusOK {
					t.Fatalf("refresh: %d %+v", res.Status, next)
				}
				if next.ExpiresIn != want {
					t.Errorf("%s: refresh %d.%d: expires_in %d, want %d", lifetime, i, j, next.ExpiresIn, want)
				}
				tr = next
			}
		}
	}
}

// TestRefreshScope: RFC 6749 section 6. A refresh may narrow the scope (the new pair carries only
// what it asked for, and so do its successors); a scope the grant never held is invalid_scope.
func TestRefreshScope(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		refresh := func(token, scope string) (int, servertest.Tokens) {
			res, tr := e.TokenRequest(e.a, url.Values{
				"grant_type": {"refresh_token"}, "refresh_token": {token}, "client_id": {publicClient}, "scope": {scope},
			})
			return res.Status, tr
		}
		verifier := resource.NewRemoteVerifier(e.internal.URL+resource.IntrospectPath, []byte(testInternalKey))
		scopesOf := func(token string) []string {
			g, err := verifier.Verify(school.NewContext(context.Background(), e.a), token)
			if err != nil {
				t.Fatalf("verify: %v", err)
			}
			return g.Scopes
		}
		tr := e.tokens("openid", "profile", "account:read")
		for _, scope := range []string{"account:write", "admin", "account:read account:write"} {
			if status, r := refresh(tr.RefreshToken, scope); status != http.StatusBadRequest || r.Error != "invalid_scope" {
				t.Errorf("scope %q never granted: %d %+v, want invalid_scope", scope, status, r)
			}
		}
		status, narrow := refresh(tr.RefreshToken, "account:read openid")
		if status != http.StatusOK || narrow.Scope != "account:read openid" {
			t.Fatalf("narrowing refresh: %d %+v", status, narrow)
		}
		if got := scopesOf(narrow.AccessToken); !slices.Equal(got, []string{"account:read", "openid"}) {
			t.Errorf("narrowed pair's scopes %v", got)
		}
		if status, r := refresh(narrow.RefreshToken, "profile"); status != http.StatusBadRequest || r.Error != "invalid_scope" {
			t.Errorf("widening a narrowed grant again: %d %+v, want invalid_scope", status, r)
		}
		status, next := refresh(narrow.RefreshToken, "")
		if status != http.StatusOK || next.Scope != "account:read openid" {
			t.Fatalf("refresh of the narrowed pair without scope: %d %+v", status, next)
		}
		if got := scopesOf(next.AccessToken); !slices.Equal(got, []string{"account:read", "openid"}) {
			t.Errorf("scopes after a refresh without scope %v", got)
		}
	})
}

// TestRepeatedParameters: a parameter sent twice is invalid_request at the token, revocation and
// authorization endpoints (RFC 6749 sections 3.1, 3.2), never "the first value wins". At the
// authorization endpoint a repeated client_id or redirect_uri is answered on an error page,
// never by a redirect to a URI that was not validated; any other repeated parameter is
// redirected to the (single, registered) redirect URI.
func TestRepeatedParameters(t *testing.T) {
	e := newEnv(t, "sqlite")
	t.Run("token endpoint", func(t *testing.T) {
		code, p := e.Code(e.a, studentEmail, oauthClient(publicClient), "account:read")
		for name, extra := range map[string]url.Values{
			"grant_type":    {"grant_type": {"authorization_code", "refresh_token"}},
			"redirect_uri":  {"redirect_uri": {redirectURI, "http://127.0.0.1:9/callback"}},
			"code":          {"code": {code, code}},
			"client_id":     {"client_id": {publicClient, publicClient}},
			"code_verifier": {"code_verifier": {p.Verifier, p.Verifier}},
		} {
			form := servertest.ExchangeForm(e.a, oauthClient(publicClient), code, p)
			for k, v := range extra {
				form[k] = v
			}
			if res, tr := e.TokenRequest(e.a, form); res.Status != http.StatusBadRequest || tr.Error != "invalid_request" {
				t.Errorf("repeated %s: %d %+v, want invalid_request", name, res.Status, tr)
			}
		}
		// None of them spent the code.
		if res, tr := e.Exchange(e.a, oauthClient(publicClient), code, p); res.Status != http.StatusOK {
			t.Fatalf("exchange after the refused ones: %d %+v", res.Status, tr)
		}
		live := e.tokens("account:read")
		res, tr := e.TokenRequest(e.a, url.Values{"grant_type": {"refresh_token"}, "client_id": {publicClient},
			"refresh_token": {live.RefreshToken}, "resource": {e.a.Origin, e.b.Origin}})
		if res.Status != http.StatusBadRequest || tr.Error != "invalid_target" {
			t.Errorf("two resources: %d %+v, want invalid_target", res.Status, tr)
		}
	})
	t.Run("revocation endpoint", func(t *testing.T) {
		tr := e.tokens("account:read")
		// revoke posts a form to the revocation endpoint and decodes its JSON answer.
		revoke := func(form url.Values) (int, servertest.Tokens) {
			res := e.Send(http.MethodPost, e.url(e.a, endpoint.Revoke), form)
			var r servertest.Tokens
			if !res.JSON(&r) {
				t.Fatalf("revocation: not JSON (%d): %s", res.Status, res.Body)
			}
			return res.Status, r
		}
		status, r := revoke(url.Values{"token": {"x.y", tr.RefreshToken}, "client_id": {publicClient}})
		if status != http.StatusBadRequest || r.Error != "invalid_request" {
			t.Errorf("repeated token: %d %+v, want invalid_request", status, r)
		}
		if s := e.Userinfo(e.a, tr.AccessToken); s != http.StatusOK {
			t.Errorf("a refused revocation revoked the grant (%d)", s)
		}
		status, r = revoke(url.Values{"token": {tr.RefreshToken}, "client_id": {publicClient, publicClient}})
		if status != http.StatusBadRequest || r.Error != "invalid_request" {
			t.Errorf("repeated client_id: %d %+v, want invalid_request", status, r)
		}
	})
	t.Run("authorization endpoint", func(t *testing.T) {
		b := e.signedIn(e.a, studentEmail)
		p := servertest.NewPKCE()
		authorize := func(extra string) *servertest.Response {
			q := servertest.AuthorizeParams(e.a, oauthClient(publicClient), p, "account:read")
			return b.Get(e.url(e.a, endpoint.Authorize) + "?" + q.Encode() + "&" + extra)
		}
		for name, extra := range map[string]string{
			"redirect_uri":       "redirect_uri=" + url.QueryEscape("http://127.0.0.1:9/callback"),
			"redirect_uri, same": "redirect_uri=" + url.QueryEscape(redirectURI),
			"client_id":          "client_id=" + publicClient,
			"client_id, another": "client_id=course-copilot",
		} {
			resp := authorize(extra)
			if resp.Status != http.StatusBadRequest || resp.Header.Get("Location") != "" || !strings.Contains(resp.Header.Get("Content-Type"), "text/html") {
				t.Errorf("repeated %s: %d Location=%q: want an error page, never a redirect\n%s", name, resp.Status, resp.Header.Get("Location"), resp.Body)
			}
		}
		for _, name := range []string{"state", "scope", "code_challenge", "response_type", "nonce"} {
			q := servertest.AuthorizeParams(e.a, oauthClient(publicClient), p, "account:read")
			q.Add(name, q.Get(name)+"x")
			if name == "nonce" {
				q.Set(name, "nonce-one-1")
				q.Add(name, "nonce-two-2")
			}
			resp := b.authorize(e.a, q)
			loc, _ := url.Parse(resp.Header.Get("Location"))
			if resp.Status != http.StatusSeeOther || loc == nil || !strings.HasPrefix(loc.String(), redirectURI+"?") {
				t.Errorf("repeated %s: want a redirect to the client, got %d %q\n%s", name, resp.Status, resp.Header.Get("Location"), resp.Body)
				continue
			}
			if got := loc.Query(); got.Get("error") != "invalid_request" || got.Get("code") != "" || got.Get("iss") != e.a.Origin {
				t.Errorf("repeated %s: redirect %s, want error=invalid_request", name, loc)
			}
		}
	})
}

// TestRedirectURIExact: only the port of a registered loopback redirect URI may vary; the rest
// is compared byte for byte, and the port must be one (1 to 65535). Anything else is an error
// page, never a redirect.
func TestRedirectURIExact(t *testing.T) {
	e := newEnv(t, "sqlite")
	b := e.signedIn(e.a, studentEmail)
	p := servertest.NewPKCE()
	for _, uri := range []string{
		"http://127.0.0.1:0/callback",
		"http://127.0.0.1:65536/callback",
		"http://127.0.0.1:99999/callback",
		"http://127.0.0.1:/callback",
		"http://127.0.0.1:+80/callback",
		"http://127.0.0.1/%63allback",
		"http://127.0.0.1:8080/%63allback",
		"http://127.0.0.1/callback/",
		"http://127.0.0.1/callback?x=1",
		"http://127.0.0.1/Callback",
		"http://127.000.000.001/callback",
		"http://evil.example@127.0.0.1/callback",
		"http://[::1]/callback",
		"HTTP://127.0.0.1/callback",
	} {
		q := servertest.AuthorizeParams(e.a, oauthClient(publicClient), p, "account:read")
		q.Set("redirect_uri", uri)
		resp := b.authorize(e.a, q)
		if resp.Status < 400 || resp.Header.Get("Location") != "" {
			t.Errorf("%s: %d Location=%q: want an error page\n%s", uri, resp.Status, resp.Header.Get("Location"), resp.Body)
		}
	}
	for _, uri := range []string{redirectURI, "http://127.0.0.1:1/callback", "http://127.0.0.1:65535/callback"} {
		q := servertest.AuthorizeParams(e.a, oauthClient(publicClient), p, "account:read")
		q.Set("redirect_uri", uri)
		if resp := b.authorize(e.a, q); resp.Status != http.StatusOK {
			t.Errorf("%s: %d, want the consent page\n%s", uri, resp.Status, resp.Body)
		}
	}
}

// TestTokenErrorLog: with the database down the token endpoint answers 503
// temporarily_unavailable, and its log line says why (the store is unavailable, not the
// invalid_client fosite reports) under the request id the client was given.
func TestTokenErrorLog(t *testing.T) {
	var logs servertest.LogBuffer
	e := newEnv(t, "sqlite", withLogger(slog.New(slog.NewJSONHandler(&logs, nil))))
	tr := e.tokens("account:read")
	if err := e.store.Close(); err != nil {
		t.Fatal(err)
	}
	res, body := e.TokenRequest(e.a, url.Values{
		"grant_type": {"refresh_token"}, "refresh_token": {tr.RefreshToken}, "client_id": {publicClient},
	})
	if res.Status != http.StatusServiceUnavailable || body.Error != "temporarily_unavailable" {
		t.Fatalf("refresh with the database down: %d %+v", res.Status, body)
	}
	id := res.Header.Get("X-Request-ID")
	if id == "" {
		t.Fatal("no X-Request-ID in the answer")
	}
	var found map[string]any
	for _, l := range logs.Records(t) {
		if l["msg"] == "token request failed" {
			found = l
		}
	}
	if found == nil {
		t.Fatal("no log line for the failed token request")
	}
	if found["request_id"] != id {
		t.Errorf("log line's request_id %v, want %q", found["request_id"], id)
	}
	msg, _ := found["error"].(string)
	if !strings.Contains(msg, storage.ErrUnavailable.Error()) {
		t.Errorf("log line's error %q does not say the store is unavailable", msg)
	}
}
