package securitytest

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/admin"
	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/scope"
	"github.com/proctorhq/proctor/server/servertest"
	"github.com/proctorhq/proctor/server/servertest/schools"
)

// visitEverything runs, at school s, every kind of page and answer a browser or client can
// reach: sign-in (failed, rate-limited, successful), the signed-in and sign-out pages, consent
// (approve and deny), authorization error pages, every operator page and form, error and 404
// pages, the documents, and the JSON endpoints' errors.
func visitEverything(t *testing.T, e *servertest.Env, s *servertest.School) {
	t.Helper()
	anon := e.Browser()
	for _, p := range []string{login.LoginPath, login.DonePath, login.LogoutPath, "/no-such-page", "/assets/no-such.css",
		admin.AppsPath, "/.well-known/openid-configuration", "/llms.txt", "/openapi.json"} {
		anon.Get(s.URL(p))
	}
	anon.Post(s.URL(login.LogoutPath), url.Values{})
	anon.Do(e.Request(http.MethodDelete, s.URL(login.LoginPath), nil)) // 405
	anon.TrySignIn(s, s.Student.Email, "not the password")
	limited := e.Browser()
	for range 6 { // the account's budget is 5 failures: the last answer is the 429 page
		limited.TrySignIn(s, e.Shared.Email, "not the password either")
	}
	anon.Post(s.URL(login.LoginPath), url.Values{"email": {s.Student.Email}}) // no CSRF token: 403

	// Authorization: error pages before and after sign-in, consent, approve and deny.
	p := servertest.NewPKCE()
	anon.Get(s.URL(endpoint.Authorize) + "?client_id=nobody&response_type=code")
	anon.Get(servertest.AuthorizeURL(s, s.MemberClient, p, scope.OpenID))
	member := e.Browser()
	member.SignIn(s, s.Student.Email)
	member.Get(s.URL(login.DonePath))
	member.Get(s.URL(login.LoginPath))
	member.Get(servertest.AuthorizeURL(s, s.OperatorClient, p, "courses:read")) // 403: not an operator
	member.Consent(servertest.AuthorizeURL(s, s.MemberClient, p, scope.OpenID), "deny")
	code := member.Approve(servertest.AuthorizeURL(s, s.MemberClient, p, scope.OpenID, scope.AccountRead))
	member.Post(s.URL(endpoint.Authorize), url.Values{"client_id": {s.MemberClient.ID}}) // error page
	member.Get(s.URL(admin.AppsPath))                                                    // 403 page
	_, tr := e.Exchange(s, s.MemberClient, code, p)
	e.TokenRequest(s, url.Values{"grant_type": {"password"}})
	e.Userinfo(s, tr.AccessToken)
	e.Userinfo(s, "not-a-token")
	e.Bearer(http.MethodPost, s.URL(endpoint.MemberGraphQL), tr.AccessToken, "application/json", `{"query":"{ viewer { id } }"}`)
	e.Bearer(http.MethodPost, s.URL(endpoint.MCP), "", "application/json", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		"Accept", "application/json, text/event-stream", "MCP-Protocol-Version", "2025-06-18")
	e.Bearer(http.MethodGet, s.URL("/api/v1/courses"), "", "", "")
	e.Revoke(s, s.MemberClient, tr.RefreshToken)
	e.Bearer(http.MethodPost, s.URL(endpoint.Register), "", "application/json", `{}`)

	// The operator pages: list, form, create (public and confidential), show, rotate, delete, 404.
	op := e.Browser()
	op.SignIn(s, s.Owner.Email)
	pub := createApp(t, op, s, "Headers Public", false)
	conf := createApp(t, op, s, "Headers Confidential", true)
	for _, page := range crawl(op, s, 40, s.URL(admin.AppsPath), s.URL(admin.AppsPath+"/no-such-app"), s.URL(admin.AppsPath+"/"+pub+"/rotate")) {
		for _, f := range page.Forms() {
			if strings.Contains(f.Action, "/rotate") || strings.Contains(f.Action, "/delete") && strings.Contains(f.Action, pub) {
				op.Submit(f, "")
			}
		}
	}
	op.Post(s.URL(admin.AppsPath+"/"+conf+"/delete"), url.Values{login.CSRFField: {"wrong"}}) // 403 form
	// The member pages: the list, a search, a member, an action's confirmation, a refused form,
	// a member of nowhere (404).
	student := admin.MembersPath + "/" + strconv.FormatInt(s.Student.ID, 10)
	crawl(op, s, 8, s.URL(admin.MembersPath), s.URL(admin.MembersPath+"?q=student"), s.URL(student), s.URL(student+"/roles"),
		s.URL(admin.MembersPath+"/999999"))
	op.Post(s.URL(student+"/sign-out"), url.Values{login.CSRFField: {"wrong"}}) // 403 form
	f, _ := op.Get(s.URL(admin.NewAppPath)).FormWith(login.CSRFField)
	f.Values.Set("name", "")
	op.Submit(f, "") // 422: the form again with errors
	logout, _ := op.Get(s.URL(login.LogoutPath)).FormWith(login.CSRFField)
	op.Submit(logout, "")
}

// TestFramingAndCookies: every answer of every school (plain http and https) refuses framing
// (Content-Security-Policy frame-ancestors 'none' and X-Frame-Options: DENY), and every cookie
// the server sets is HttpOnly, SameSite Lax or Strict, has a Path and no Domain, and on the
// https school is Secure and __Host- prefixed.
func TestFramingAndCookies(t *testing.T) {
	schools.Backends(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, func(o *servertest.Options) { o.HTTPS = true })
		for _, s := range e.Schools() {
			visitEverything(t, e, s)
		}
		// A host that is no school's: 404 before any route.
		req := e.Request(http.MethodGet, "http://"+e.PublicAddr+"/login", nil)
		req.Host = "evil.example"
		e.Do(e.Client(), req)

		answers := publicAnswers(e)
		html, cookies := 0, 0
		secureSeen := false
		for _, x := range answers {
			if strings.HasPrefix(x.Header.Get("Content-Type"), "text/html") {
				html++
			}
			for _, p := range framingProblems(x.Header) {
				t.Errorf("%s %s (%d): %s", x.Method, x.URL, x.Status, p)
			}
			u, _ := url.Parse(x.URL)
			https := u.Scheme == "https"
			for _, line := range x.Header.Values("Set-Cookie") {
				cookies++
				c, err := http.ParseSetCookie(line)
				if err != nil {
					t.Errorf("%s %s: unreadable Set-Cookie %q: %v", x.Method, x.URL, line, err)
					continue
				}
				var problems []string
				if !c.HttpOnly {
					problems = append(problems, "not HttpOnly")
				}
				if c.SameSite != http.SameSiteLaxMode && c.SameSite != http.SameSiteStrictMode {
					problems = append(problems, "SameSite is not Lax or Strict")
				}
				if c.Path == "" {
					problems = append(problems, "no Path")
				}
				if c.Domain != "" {
					problems = append(problems, "a Domain (not host-only)")
				}
				if https {
					secureSeen = true
					if !c.Secure {
						problems = append(problems, "not Secure on an https origin")
					}
					if !strings.HasPrefix(c.Name, "__Host-") || c.Path != "/" {
						problems = append(problems, "not a __Host- cookie for / on an https origin")
					}
				}
				for _, p := range problems {
					t.Errorf("%s %s: cookie %s: %s (%q)", x.Method, x.URL, c.Name, p, line)
				}
			}
		}
		if html < 30 || cookies < 10 || !secureSeen {
			t.Errorf("the sweep saw %d HTML pages and %d cookies (https cookies: %v): too few to judge", html, cookies, secureSeen)
		}
		t.Logf("%d answers, %d HTML pages, %d cookies checked", len(answers), html, cookies)
	})
}
