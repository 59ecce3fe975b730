package securitytest

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/admin"
	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/scope"
	"github.com/proctorhq/proctor/server/servertest"
	"github.com/proctorhq/proctor/server/servertest/schools"
)

// badRedirectURIs are redirect_uri values that are not school A's member client's registered
// URI (http://127.0.0.1/north/callback): unregistered, malformed, lookalikes, and school B's.
func badRedirectURIs(e *servertest.Env) []string {
	return []string{
		"https://evil.example/callback",
		"http://evil.example/north/callback",
		"http://127.0.0.1.evil.example/north/callback",
		"http://127.0.0.1/north/callbackx",
		"http://127.0.0.1/north/callback/extra",
		"http://127.0.0.1/north/callback/../../evil",
		"http://127.0.0.1/north/callback?next=https://evil.example",
		"http://127.0.0.1/north/callback#https://evil.example",
		"http://evil.example@127.0.0.1/north/callback",
		"http://127.0.0.1@evil.example/north/callback",
		"https://127.0.0.1/north/callback",
		"//evil.example/north/callback",
		"/north/callback",
		"javascript:alert(document.domain)//",
		"data:text/html,<script>alert(1)</script>",
		`http:\\evil.example\north\callback`,
		"http://[::1",
		"not a url",
		"http://127.0.0.1/north/callback\r\nLocation: https://evil.example",
		e.B.MemberClient.RedirectURI,           // school B's client's URI
		e.B.Origin + login.DonePath,            // school B's origin
		e.A.Origin + "/login?return_to=//evil", // the school's own origin
	}
}

// TestAuthorizeNeverRedirectsToAnUnregisteredURI: whatever the redirect_uri, an authorization
// request whose URI is not the client's registered one is answered with an error page, never a
// redirect, signed in or not, by GET or POST, and on the consent POST; errors found after the
// URI was validated go to the registered URI only.
func TestAuthorizeNeverRedirectsToAnUnregisteredURI(t *testing.T) {
	schools.Backends(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend)
		a, c := e.A, e.A.MemberClient
		signedIn := e.Browser()
		signedIn.SignIn(a, a.Student.Email)
		csrf := signedIn.SessionCSRF(a)
		for _, uri := range badRedirectURIs(e) {
			t.Run(uri, func(t *testing.T) {
				params := servertest.AuthorizeParams(a, c, servertest.NewPKCE(), scope.OpenID)
				params.Set("redirect_uri", uri)
				authURL := a.URL(endpoint.Authorize) + "?" + params.Encode()
				answers := map[string]*servertest.Response{
					"GET signed out":  e.Send(http.MethodGet, authURL, nil),
					"POST signed out": e.Send(http.MethodPost, a.URL(endpoint.Authorize), params),
					"GET signed in":   signedIn.Get(authURL),
					"consent POST":    signedIn.Post(authURL, url.Values{login.CSRFField: {csrf}, "decision": {"approve"}}),
				}
				var failures []string
				for how, r := range answers {
					if loc := r.Header.Get("Location"); loc != "" || r.Status < 400 || !r.IsHTML() {
						failures = append(failures, fmt.Sprintf("%s: %d Location %q", how, r.Status, loc))
					}
				}
				if len(failures) == 0 {
					return
				}
				sort.Strings(failures)
				t.Errorf("redirect_uri %q is not the registered one; want an error page and no redirect:\n%s", uri, strings.Join(failures, "\n"))
			})
		}

		// A request with the registered URI but another error goes back to that URI only.
		params := servertest.AuthorizeParams(a, c, servertest.NewPKCE(), scope.OpenID)
		params.Set("code_challenge_method", "plain")
		r := signedIn.Get(a.URL(endpoint.Authorize) + "?" + params.Encode())
		loc, err := url.Parse(r.Header.Get("Location"))
		if err != nil || loc.Scheme+"://"+loc.Host+loc.Path != c.RedirectURI || loc.Query().Get("error") == "" {
			t.Errorf("an error after the redirect URI was validated: %d Location %q; want the registered URI with error", r.Status, r.Header.Get("Location"))
		}
	})
}

// returnToVariants are values of return_to (and next-style parameters) that would leave the
// school's origin if followed: absolute, scheme-relative, backslash, encoded, whitespace and
// dot-segment forms, and the other school's origin.
func returnToVariants(e *servertest.Env) []string {
	_, port, _ := strings.Cut(e.PublicAddr, ":")
	return []string{
		"https://evil.example/",
		"http://evil.example",
		"//evil.example/",
		"///evil.example/",
		"////evil.example/",
		`/\evil.example/`,
		`\\evil.example\`,
		`/\/evil.example/`,
		`\/evil.example/`,
		"http:evil.example",
		"https:/evil.example",
		"https:///evil.example",
		"/%2F%2Fevil.example/",
		"/%2f%2fevil.example/",
		"%2F%2Fevil.example/",
		"/%5Cevil.example/",
		"/%5C%5Cevil.example/",
		"/\t/evil.example/",
		"/\n/evil.example/",
		"/%09/evil.example/",
		" //evil.example/",
		"/ /evil.example/",
		"/..//evil.example/",
		"/login/..//evil.example/",
		"/./..//evil.example/",
		"javascript:alert(document.domain)",
		"data:text/html,hi",
		"//evil.example%2F@127.0.0.1:" + port + "/",
		"//127.0.0.1:" + port + "@evil.example/",
		"/\u3002evil.example",
		"//evil%2Eexample/",
		"http://127.0.0.1:" + port + ".evil.example/",
		e.B.Origin + login.DonePath,
		e.B.Origin,
	}
}

// nextStyle are parameter names other applications use for the same purpose; the server must
// not honour any of them by leaving the origin.
var nextStyle = []string{"return_to", "next", "redirect", "redirect_to", "redirect_uri", "continue", "url", "returnTo"}

// TestReturnToNeverLeavesTheOrigin: sign-in (GET while signed in, the form's hidden field, the
// POST), sign-out (GET and POST) and the operator pages' sign-in redirect never send the browser
// off school A's origin, whatever return_to or next-style parameter they are given.
func TestReturnToNeverLeavesTheOrigin(t *testing.T) {
	schools.Backends(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend)
		a := e.A
		signedIn := e.Browser()
		signedIn.SignIn(a, a.Student.Email)
		check := func(what, v string, r *servertest.Response) {
			t.Helper()
			if loc := r.Header.Get("Location"); !staysOn(a.Origin, loc) {
				t.Errorf("%s with %q: Location %q leaves %s", what, v, loc, a.Origin)
			}
		}
		for _, v := range returnToVariants(e) {
			for _, name := range nextStyle {
				q := url.Values{name: {v}}.Encode()
				check("GET /login signed in, "+name, v, signedIn.Get(a.URL(login.LoginPath)+"?"+q))
				check("GET /logout, "+name, v, signedIn.Get(a.URL(login.LogoutPath)+"?"+q))
			}

			// The sign-in form carries only a local return_to, and the sign-in goes there.
			b := e.Browser()
			page := b.Get(a.URL(login.LoginPath) + "?" + url.Values{"return_to": {v}}.Encode())
			f, ok := page.FormWith("password")
			if !ok {
				t.Fatalf("no sign-in form (%d)", page.Status)
			}
			if rt := f.Values.Get("return_to"); !staysOn(a.Origin, rt) {
				t.Errorf("the sign-in form for return_to %q carries return_to %q", v, rt)
			}
			f.Values.Set("email", a.Student.Email)
			f.Values.Set("password", servertest.Password)
			f.Values.Set("return_to", v) // what a forged form would post
			r := b.Submit(f, "")
			if r.Status != http.StatusSeeOther {
				t.Fatalf("sign-in with return_to %q: %d", v, r.Status)
			}
			check("POST /login", v, r)

			// Signing out answers a page, wherever the form says to go.
			out := b.Post(a.URL(login.LogoutPath), url.Values{login.CSRFField: {b.SessionCSRF(a)}, "return_to": {v}, "next": {v}})
			check("POST /logout", v, out)

			// An operator page sends a signed-out browser to sign in and back to a local path.
			r = e.Send(http.MethodGet, a.URL(admin.AppsPath)+"?"+url.Values{"after": {v}, "return_to": {v}}.Encode(), nil)
			check("GET operator page signed out", v, r)
			if loc := r.Header.Get("Location"); loc != "" {
				u, err := url.Parse(loc)
				if err != nil || !staysOn(a.Origin, u.Query().Get("return_to")) {
					t.Errorf("operator page sign-in redirect %q carries a return_to off the origin", loc)
				}
			}
		}
	})
}

// TestStaysOn keeps the suite's own judge honest.
func TestStaysOn(t *testing.T) {
	const origin = "http://127.0.0.1:8080"
	for loc, want := range map[string]bool{
		"":                           true,
		"/login/done":                true,
		"/oauth/authorize?x=1":       true,
		origin + "/x":                true,
		"//evil.example/":            false,
		`/\evil.example`:             false,
		"/\t/evil.example":           false,
		"https://evil.example":       false,
		"http://127.0.0.1:8081/":     false,
		"/%2F%2Fevil.example":        false,
		"javascript:alert(1)":        false,
		"http://localhost:8080/":     false,
		"http:evil.example":          false, // a browser reads it as a relative path; judged strictly
		"http://127.0.0.1:8080@evil": false,
	} {
		if got := staysOn(origin, loc); got != want {
			t.Errorf("staysOn(%q) = %v, want %v", loc, got, want)
		}
	}
}
