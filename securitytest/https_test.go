package securitytest

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/scope"
	"github.com/proctorhq/proctor/server/servertest"
	"github.com/proctorhq/proctor/server/servertest/schools"
)

// TestHTTPSSchoolNotServedOverHTTP: school C (base_url https) reached over plain http, either at
// the plain listener directly or at the TLS listener through a trusted proxy that says the
// client used http, serves nothing with a member's credentials: UserInfo, the Member API, /mcp,
// the operator API, the token and revocation endpoints answer 400 invalid_request without
// running (the revocation revoked nothing, the refresh rotated nothing, no member data in any
// body), pages redirect to the same path and query on C's own https origin, and a browser's
// session cookie, under either name, does not make a signed-in page.
func TestHTTPSSchoolNotServedOverHTTP(t *testing.T) {
	schools.Backends(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, func(o *servertest.Options) {
			o.HTTPS = true
			configure := o.Configure
			o.Configure = func(s *config.Server) {
				configure(s)
				s.TrustedProxies = []string{"127.0.0.1"} // the test's clients play the proxy
			}
		})
		c := e.C
		tr := e.Tokens(c, c.Student.Email, scope.OpenID, scope.Email, scope.AccountRead)
		browser := e.Browser()
		browser.SignIn(c, c.Student.Email)
		session := browser.Cookie(c, login.SecureSessionCookie)
		if session == "" {
			t.Fatal("no session cookie after signing in at the https school")
		}

		// The two ways a request reaches the server as plain http: its URL and extra headers.
		for _, v := range []struct {
			name, base string
			header     []string
		}{
			{"plain listener", "http://" + e.PublicAddr, nil},
			{"trusted proxy saying http", c.Origin, []string{"X-Forwarded-Proto", "http"}},
		} {
			t.Run(v.name, func(t *testing.T) {
				send := func(method, path, contentType, body string, header ...string) *servertest.Response {
					r, err := http.NewRequestWithContext(t.Context(), method, v.base+path, strings.NewReader(body))
					if err != nil {
						t.Fatal(err)
					}
					r.Host = c.Host
					if contentType != "" {
						r.Header.Set("Content-Type", contentType)
					}
					header = append(header, v.header...)
					for i := 0; i+1 < len(header); i += 2 {
						r.Header.Set(header[i], header[i+1])
					}
					return e.Do(e.Client(), r)
				}
				const form = "application/x-www-form-urlencoded"
				auth := []string{"Authorization", "Bearer " + tr.AccessToken}
				for _, tc := range []struct {
					name      string
					resp      *servertest.Response
					challenge bool
				}{
					{"userinfo", send(http.MethodGet, endpoint.Userinfo, "", "", auth...), true},
					{"member API", send(http.MethodPost, endpoint.MemberGraphQL, "application/json", `{"query":"{ viewer { email } }"}`, auth...), true},
					{"mcp", send(http.MethodPost, endpoint.MCP, "application/json", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
						append(auth, "Accept", "application/json, text/event-stream", "MCP-Protocol-Version", "2025-06-18")...), true},
					{"operator API", send(http.MethodGet, "/api/v1/courses", "", "", auth...), true},
					{"revocation", send(http.MethodPost, endpoint.Revoke, form,
						url.Values{"token": {tr.AccessToken}, "client_id": {c.MemberClient.ID}}.Encode()), false},
					{"refresh", send(http.MethodPost, endpoint.Token, form, url.Values{
						"grant_type": {"refresh_token"}, "refresh_token": {tr.RefreshToken}, "client_id": {c.MemberClient.ID}, "resource": {c.Origin},
					}.Encode()), false},
				} {
					var body struct{ Error string }
					tc.resp.JSON(&body)
					if tc.resp.Status != http.StatusBadRequest || body.Error != "invalid_request" {
						t.Errorf("%s: %d %s; want 400 invalid_request", tc.name, tc.resp.Status, tc.resp.Body)
					}
					if strings.Contains(tc.resp.Body, c.Student.Email) || strings.Contains(tc.resp.Body, "access_token") {
						t.Errorf("%s: served: %s", tc.name, tc.resp.Body)
					}
					if got := strings.HasPrefix(tc.resp.Header.Get("WWW-Authenticate"), `Bearer error="invalid_request"`); got != tc.challenge {
						t.Errorf("%s: WWW-Authenticate %q", tc.name, tc.resp.Header.Get("WWW-Authenticate"))
					}
				}

				// Pages: to the https origin, same path and query; the session cookie, under either
				// name, does not sign the request in.
				for _, path := range []string{login.DonePath, login.LoginPath + "?return_to=%2Flogin%2Fdone", servertest.AuthorizeURL(c, c.MemberClient, servertest.NewPKCE(), scope.OpenID)[len(c.Origin):]} {
					resp := send(http.MethodGet, path, "", "", "Cookie", login.SessionCookie+"="+session+"; "+login.SecureSessionCookie+"="+session)
					if resp.Status != http.StatusMovedPermanently || resp.Header.Get("Location") != c.Origin+path {
						t.Errorf("GET %s: %d, Location %q; want 301 to %s", path, resp.Status, resp.Header.Get("Location"), c.Origin+path)
					}
					if strings.Contains(resp.Body, c.Student.Email) || len(resp.Header.Values("Set-Cookie")) > 0 {
						t.Errorf("GET %s: a page or a cookie over http: %v\n%s", path, resp.Header, resp.Body)
					}
				}
			})
		}

		// Nothing above ran: over https the access token still works and the refresh token
		// still rotates once.
		if status := e.Userinfo(c, tr.AccessToken); status != http.StatusOK {
			t.Errorf("userinfo over https after the http attempts: %d", status)
		}
		if r, _ := e.Refresh(c, c.MemberClient, tr.RefreshToken); r.Status != http.StatusOK {
			t.Errorf("refresh over https after the http attempts: %d %s", r.Status, r.Body)
		}
	})
}
