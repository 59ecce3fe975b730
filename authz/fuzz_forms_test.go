package authz_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/server/servertest"
)

// FuzzAuthorizeQuery sends arbitrary query strings to GET /oauth/authorize of a real server, as
// a signed-in member or anonymously. Whatever the query, the answer is never a server error, and
// a redirect goes either to the school's own pages (the login page) or to a redirect URI
// registered for the client the query names: never anywhere the query alone chose.
func FuzzAuthorizeQuery(f *testing.F) {
	e := newEnv(f, "sqlite")
	p := servertest.NewPKCE()
	valid := servertest.AuthorizeParams(e.a, oauthClient(publicClient), p, "openid", "profile", "account:read")
	with := func(changes ...string) string {
		q := url.Values{}
		for k, v := range valid {
			q[k] = append([]string(nil), v...)
		}
		for i := 0; i+1 < len(changes); i += 2 {
			if changes[i+1] == "" {
				q.Del(changes[i])
				continue
			}
			q.Set(changes[i], changes[i+1])
		}
		return q.Encode()
	}
	integration := servertest.AuthorizeParams(e.a, oauthClient("course-copilot"), p, "openid", "courses:read")
	integration.Set("redirect_uri", "http://127.0.0.1:53682/callback")
	for _, seed := range []string{
		valid.Encode(),
		integration.Encode(),
		with("prompt", "none"),
		with("prompt", "login"),
		with("max_age", "0"),
		with("redirect_uri", "https://evil.example/callback"),
		with("redirect_uri", "http://127.0.0.1:1/callback"),
		with("redirect_uri", "//evil.example/callback"),
		with("redirect_uri", "http://127.0.0.1:0/callback"),
		with("redirect_uri", "http://127.0.0.1:65536/callback"),
		with("redirect_uri", "http://127.0.0.1/%63allback"),
		with("redirect_uri", "http://127.0.0.1:8080/%63allback"),
		valid.Encode() + "&redirect_uri=" + url.QueryEscape("http://127.0.0.1:9/callback"),
		valid.Encode() + "&state=other-state",
		with("client_id", "unknown-client"),
		with("client_id", "https://evil.example/client.json"),
		with("client_id", operatorEmail),
		with("scope", "openid courses:read"),
		with("resource", "https://evil.example"),
		with("resource", ""),
		with("code_challenge_method", "plain"),
		with("response_type", "token"),
		with("response_mode", "fragment"),
		with("nonce", "short"),
		with("state", ""),
		valid.Encode() + "&redirect_uri=https%3A%2F%2Fevil.example%2F",
		valid.Encode() + "&client_id=course-copilot",
		valid.Encode() + "&resource=" + url.QueryEscape(e.a.Origin+"/mcp"),
		"client_id=member-app;redirect_uri=http://127.0.0.1/callback",
		"%zz&client_id=%",
		"",
	} {
		f.Add(seed, true)
		f.Add(seed, false)
	}
	// A member signed in once; each iteration carries the session cookie or not.
	b := e.signedIn(e.a, studentEmail)
	authorizeURL, _ := url.Parse(e.url(e.a, endpoint.Authorize))
	cookies := b.Client.Jar.Cookies(authorizeURL)
	if len(cookies) == 0 {
		f.Fatal("no session cookie after signing in")
	}
	registered := map[string][]string{publicClient: {redirectURI}, opClient: {redirectURI}}
	for _, in := range testIntegrations {
		registered[in.ClientID] = in.RedirectURIs
	}
	handler := e.srv.Config.Handler
	host := strings.TrimPrefix(e.a.Origin, "http://")

	f.Fuzz(func(t *testing.T, query string, signedIn bool) {
		req := httptest.NewRequest(http.MethodGet, endpoint.Authorize, nil)
		req.URL.RawQuery = query
		req.RequestURI = endpoint.Authorize + "?" + query
		req.Host = host
		if signedIn {
			for _, c := range cookies {
				req.AddCookie(c)
			}
		}
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("query %q: status %d\n%s", query, rec.Code, rec.Body.String())
		}
		loc := rec.Header().Get("Location")
		if loc == "" {
			return
		}
		u, err := url.Parse(loc)
		if err != nil {
			t.Fatalf("query %q: unparsable Location %q", query, loc)
		}
		if sameOrigin(u, e.a.Origin) {
			return
		}
		form, _ := url.ParseQuery(query)
		if !registeredRedirect(u, registered[form.Get("client_id")]) {
			t.Fatalf("query %q: redirected to %q, not a redirect URI of client %q", query, loc, form.Get("client_id"))
		}
	})
}

// sameOrigin reports whether a Location stays on the school: a path on the same host (not a
// scheme-relative "//host" or "/\host", which browsers send elsewhere) or an absolute URL with
// the school's origin.
func sameOrigin(u *url.URL, origin string) bool {
	if u.Scheme == "" && u.Host == "" && u.User == nil {
		return strings.HasPrefix(u.Path, "/") && !strings.HasPrefix(u.Path, "//") && !strings.HasPrefix(u.Path, "/\\")
	}
	return u.User == nil && u.Scheme+"://"+u.Host == origin
}

// registeredRedirect reports whether u is one of the registered URIs, its query aside (errors
// and codes are added to it), its path compared as written. A loopback URI matches on any port
// from 1 to 65535 (RFC 8252 section 7.3).
func registeredRedirect(u *url.URL, uris []string) bool {
	if u.User != nil || u.Fragment != "" {
		return false
	}
	for _, raw := range uris {
		r, err := url.Parse(raw)
		if err != nil || r.Scheme != u.Scheme || r.EscapedPath() != u.EscapedPath() || r.Hostname() != u.Hostname() {
			continue
		}
		if r.Port() == u.Port() {
			return true
		}
		port, err := strconv.Atoi(u.Port())
		if ip := net.ParseIP(r.Hostname()); ip != nil && ip.IsLoopback() && (u.Port() == "" || err == nil && port >= 1 && port <= 65535) {
			return true
		}
	}
	return false
}

// FuzzRevokeForm posts arbitrary form bodies to the revocation endpoint, with live tokens of a
// real grant among the seeds. Whatever the input, the answer is never a server error, and a
// refusal carries an OAuth error code.
func FuzzRevokeForm(f *testing.F) {
	e := newEnv(f, "sqlite")
	secret := e.confidential()
	tr := e.tokens("openid", "account:read")
	for _, seed := range []string{
		"token=" + url.QueryEscape(tr.AccessToken) + "&client_id=member-app",
		"token=" + url.QueryEscape(tr.RefreshToken) + "&token_type_hint=refresh_token&client_id=member-app",
		"token=" + url.QueryEscape(tr.AccessToken) + "&token_type_hint=refresh_token&client_id=member-app",
		"token=" + url.QueryEscape(tr.AccessToken) + "&client_id=member-conf&client_secret=" + url.QueryEscape(secret),
		"token=" + url.QueryEscape(tr.AccessToken) + "&client_id=member-conf&client_secret=wrong",
		"token=" + url.QueryEscape(tr.AccessToken) + "&client_id=operator-app",
		"token=a.b&client_id=member-app",
		"token=&client_id=member-app",
		"token=x&token_type_hint=id_token&client_id=member-app",
		"token=x&client_id=course-copilot",
		"token=x&client_id=https%3A%2F%2Fevil.example%2Fc.json",
		"token=x&token=y&client_id=member-app&client_id=operator-app",
		"client_id=member-app",
		"token=%zz",
		"",
	} {
		f.Add(seed)
	}
	fuzzFormEndpoint(f, e, endpoint.Revoke)
}
