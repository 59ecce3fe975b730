package servertest

import (
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/server/servertest/schools"
)

// Pages is a browser for a server a test composes itself on schools.New: a cookie jar,
// redirects not followed, and optionally a User-Agent and a client address (the test-only
// X-Test-Addr header that schools.Middleware reads), so that tests of sessions and limits can
// tell browsers apart.
type Pages struct {
	t      testing.TB
	Client *http.Client
	// UA is the User-Agent sent ("": Go's).
	UA string
	// Addr is the client address claimed ("": the test server's peer).
	Addr string
	// Lang is the Accept-Language sent ("": none).
	Lang string
}

// NewPages returns a browser with no cookies that sends through tr (nil: a transport of its
// own); the transport's idle connections are closed when the test ends.
func NewPages(t testing.TB, tr *http.Transport) *Pages {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	if tr == nil {
		tr = &http.Transport{}
	}
	t.Cleanup(tr.CloseIdleConnections)
	return &Pages{t: t, Client: &http.Client{Jar: jar, Transport: tr, CheckRedirect: noRedirects}}
}

// Try sends a request (a non-nil form is sent form-encoded) and reads the answer; it returns
// the error instead of failing the test, for use in a goroutine.
func (b *Pages) Try(method, rawURL string, form url.Values) (*Response, error) {
	req, err := newRequest(b.t, method, rawURL, form)
	if err != nil {
		return &Response{}, err
	}
	schools.Identify(req.Header, b.Addr, b.UA, b.Lang)
	res, err := send(b.Client, req)
	if err != nil {
		return &Response{}, err
	}
	return res, nil
}

// Do is Try that fails the test on an error.
func (b *Pages) Do(method, rawURL string, form url.Values) *Response {
	b.t.Helper()
	res, err := b.Try(method, rawURL, form)
	if err != nil {
		b.t.Fatal(err)
	}
	return res
}

// Get fetches rawURL.
func (b *Pages) Get(rawURL string) *Response {
	b.t.Helper()
	return b.Do(http.MethodGet, rawURL, nil)
}

// Post posts form to rawURL.
func (b *Pages) Post(rawURL string, form url.Values) *Response {
	b.t.Helper()
	return b.Do(http.MethodPost, rawURL, form)
}

// TrySignIn fills school s's sign-in form with email and pass and returns the answer to the
// POST (303 on success).
func (b *Pages) TrySignIn(s *school.School, email, pass string) *Response {
	b.t.Helper()
	return trySignIn(b.t, b, s.Origin, email, pass)
}

// SignIn signs the browser in at school s as email, with Password.
func (b *Pages) SignIn(s *school.School, email string) {
	b.t.Helper()
	signIn(b.t, b, s.Origin, email)
}

// SignedIn reports whether the browser has a live session at school s, as Browser.SignedIn
// does.
func (b *Pages) SignedIn(s Site) bool {
	b.t.Helper()
	return signedIn(b.t, b, s)
}

// SessionCSRF returns the CSRF token of the browser's session at school s, as
// Browser.SessionCSRF does.
func (b *Pages) SessionCSRF(s Site) string {
	b.t.Helper()
	return sessionCSRF(b.t, b, s)
}

// Consent opens an authorization URL (the browser is signed in) and answers its consent page
// with decision ("approve" or "deny"), as Browser.Consent does.
func (b *Pages) Consent(authURL, decision string) (page, answer *Response) {
	b.t.Helper()
	return consent(b.t, b, authURL, decision)
}

// Approve approves an authorization and returns the code the redirect carries, as
// Browser.Approve does.
func (b *Pages) Approve(authURL string) string {
	b.t.Helper()
	return approve(b.t, b, authURL)
}

// ChooseLanguage picks lang with the pages' language switcher at school s, as a member does; a
// switcher that does not answer with its redirect fails the test.
func (b *Pages) ChooseLanguage(s *school.School, lang string) {
	b.t.Helper()
	q := url.Values{"lang": {lang}, "return_to": {login.LoginPath}}
	if res := b.Get(s.Origin + login.LanguagePath + "?" + q.Encode()); res.Status != http.StatusSeeOther {
		b.t.Fatalf("choose %s: %d", lang, res.Status)
	}
}

// newRequest builds a request of the test; a non-nil form is sent as
// application/x-www-form-urlencoded.
func newRequest(t testing.TB, method, rawURL string, form url.Values) (*http.Request, error) {
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(t.Context(), method, rawURL, body)
	if err != nil {
		return nil, err
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	return req, nil
}

// send sends req with client and reads the answer.
func send(client *http.Client, req *http.Request) (*Response, error) {
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("reading the answer: %w", err)
	}
	return &Response{URL: req.URL, Method: req.Method, Status: resp.StatusCode, Header: resp.Header, Body: string(body)}, nil
}

// HTMLLang returns the lang attribute of a page's <html> element ("" without one).
func HTMLLang(page string) string { return schools.HTMLLang(page) }
