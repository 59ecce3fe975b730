package servertest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/proctorhq/proctor/bench/flow"
	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/resource"
	"github.com/proctorhq/proctor/scope"
)

// Response is an answer with its body read.
type Response struct {
	// URL is the request's URL, Method its method.
	URL    *url.URL
	Method string
	Status int
	Header http.Header
	Body   string
}

// Location returns the Location header resolved against the request's URL ("" without one).
func (r *Response) Location() string {
	loc := r.Header.Get("Location")
	if loc == "" {
		return ""
	}
	u, err := r.URL.Parse(loc)
	if err != nil {
		return loc
	}
	return u.String()
}

// JSON decodes the body into v and reports whether it could.
func (r *Response) JSON(v any) bool { return json.Unmarshal([]byte(r.Body), v) == nil }

// IsHTML reports whether the answer is an HTML page.
func (r *Response) IsHTML() bool {
	return strings.HasPrefix(r.Header.Get("Content-Type"), "text/html")
}

// Forms returns the page's forms.
func (r *Response) Forms() []Form { return ParseForms(r.URL, r.Body) }

// FormWith returns the first form that has a field named name.
func (r *Response) FormWith(name string) (Form, bool) {
	for _, f := range r.Forms() {
		if f.Values.Has(name) {
			return f, true
		}
	}
	return Form{}, false
}

// CSRF returns the CSRF token of the page's first form that has one; a page without one fails
// the test.
func (r *Response) CSRF(t testing.TB) string {
	t.Helper()
	f, ok := r.FormWith(login.CSRFField)
	if !ok {
		t.Fatalf("no form with a CSRF token on %s (%d):\n%s", r.URL, r.Status, r.Body)
	}
	return f.Values.Get(login.CSRFField)
}

// Do sends req with client and reads the answer. The request must not fail at the transport
// level (the test stops if it does).
func (e *Env) Do(client *http.Client, req *http.Request) *Response {
	e.t.Helper()
	return do(e.t, client, req)
}

// Request builds a request; a non-nil form is sent as application/x-www-form-urlencoded, and
// header holds name, value pairs.
func (e *Env) Request(method, rawURL string, form url.Values, header ...string) *http.Request {
	e.t.Helper()
	return request(e.t, method, rawURL, form, header...)
}

// do is Env.Do for any test.
func do(t testing.TB, client *http.Client, req *http.Request) *Response {
	t.Helper()
	r, err := send(client, req)
	if err != nil {
		t.Fatalf("servertest: %s %s: %v", req.Method, req.URL, err)
	}
	return r
}

// request is Env.Request for any test.
func request(t testing.TB, method, rawURL string, form url.Values, header ...string) *http.Request {
	t.Helper()
	req, err := newRequest(t, method, rawURL, form)
	if err != nil {
		t.Fatalf("servertest: %v", err)
	}
	setHeader(req, header...)
	return req
}

// setHeader sets the header given as name, value pairs.
func setHeader(req *http.Request, header ...string) {
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
}

// Bearer sends a request with an access token ("" for none) and an optional body of the given
// content type (header pairs come after it and may replace it), through Env's client, so that
// the answer is recorded.
func (e *Env) Bearer(method, rawURL, token, contentType, body string, header ...string) *Response {
	e.t.Helper()
	if body != "" {
		header = append([]string{"Content-Type", contentType}, header...)
	}
	return SendBearer(e.t, e.Client(), method, rawURL, token, strings.NewReader(body), header...)
}

// SendBearer sends a request with client: the access token ("" for none) as its bearer, body
// (may be nil) and the header as name, value pairs; it reads the answer. The request must not
// fail at the transport level (the test stops if it does). It is the one way the tests send a
// resource server a token: Env.Bearer, and resourcetest's Send for a server a test composes.
func SendBearer(t testing.TB, client *http.Client, method, rawURL, token string, body io.Reader, header ...string) *Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, rawURL, body)
	if err != nil {
		t.Fatalf("servertest: %v", err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	setHeader(req, header...)
	return do(t, client, req)
}

// Browser is a member's browser: a cookie jar, redirects not followed, answers recorded.
type Browser struct {
	env    *Env
	Jar    http.CookieJar
	Client *http.Client
}

// Browser returns a new browser with no cookies.
func (e *Env) Browser() *Browser {
	jar, _ := cookiejar.New(nil)
	return &Browser{env: e, Jar: jar, Client: &http.Client{Transport: e.rec, Jar: jar, CheckRedirect: noRedirects, Timeout: time.Minute}}
}

// Do sends req with the browser's cookies and reads the answer.
func (b *Browser) Do(req *http.Request) *Response {
	b.env.t.Helper()
	return b.env.Do(b.Client, req)
}

// Get fetches rawURL.
func (b *Browser) Get(rawURL string) *Response {
	b.env.t.Helper()
	return b.Do(b.env.Request(http.MethodGet, rawURL, nil))
}

// Post posts form to rawURL.
func (b *Browser) Post(rawURL string, form url.Values) *Response {
	b.env.t.Helper()
	return b.Do(b.env.Request(http.MethodPost, rawURL, form))
}

// Submit posts a form as a browser would (its fields, and the named button's value if any).
func (b *Browser) Submit(f Form, button string) *Response {
	b.env.t.Helper()
	return b.Post(f.Action, f.Submission(button))
}

// Cookie returns the value of the browser's cookie name for school s ("" if it has none).
func (b *Browser) Cookie(s *School, name string) string {
	u, _ := url.Parse(s.Origin + "/")
	for _, c := range b.Jar.Cookies(u) {
		if c.Name == name {
			return c.Value
		}
	}
	return ""
}

// SessionCookie returns the name of the session cookie at school s.
func SessionCookie(s *School) string {
	if strings.HasPrefix(s.Origin, "https://") {
		return login.SecureSessionCookie
	}
	return login.SessionCookie
}

// LoginCSRFCookie returns the name of the sign-in form's CSRF cookie at school s.
func LoginCSRFCookie(s *School) string {
	if strings.HasPrefix(s.Origin, "https://") {
		return login.SecureLoginCSRFCookie
	}
	return login.LoginCSRFCookie
}

// TrySignIn fills school s's sign-in form with email and pass and returns the answer to the
// POST (303 on success).
func (b *Browser) TrySignIn(s *School, email, pass string) *Response {
	b.env.t.Helper()
	return trySignIn(b.env.t, b, s.Origin, email, pass)
}

// SignIn signs the browser in at school s as email, with Password.
func (b *Browser) SignIn(s *School, email string) {
	b.env.t.Helper()
	signIn(b.env.t, b, s.Origin, email)
}

// pageBrowser is what signing in needs of a browser.
type pageBrowser interface {
	Get(rawURL string) *Response
	Post(rawURL string, form url.Values) *Response
}

// trySignIn fills the sign-in form of the school at origin with email and pass and returns the
// answer to the POST (303 on success).
func trySignIn(t testing.TB, b pageBrowser, origin, email, pass string) *Response {
	t.Helper()
	page := b.Get(origin + login.LoginPath)
	f, ok := page.FormWith("password")
	if !ok {
		t.Fatalf("servertest: no sign-in form at %s (status %d)\n%s", origin, page.Status, page.Body)
	}
	f.Values.Set("email", email)
	f.Values.Set("password", pass)
	return b.Post(f.Action, f.Values)
}

// signIn signs in at the school at origin as email, with Password.
func signIn(t testing.TB, b pageBrowser, origin, email string) {
	t.Helper()
	if r := trySignIn(t, b, origin, email, Password); r.Status != http.StatusSeeOther {
		t.Fatalf("servertest: sign in as %s at %s: status %d\n%s", email, origin, r.Status, r.Body)
	}
}

// SignedIn reports whether the browser has a live session at school s (see signedIn).
func (b *Browser) SignedIn(s Site) bool {
	b.env.t.Helper()
	return signedIn(b.env.t, b, s)
}

// SessionCSRF returns the CSRF token of the browser's session at school s (see sessionCSRF).
func (b *Browser) SessionCSRF(s Site) string {
	b.env.t.Helper()
	return sessionCSRF(b.env.t, b, s)
}

// signedIn reports whether b has a live session at school s: the signed-in page answers 200,
// where a browser without a session (or only waiting for its second factor) is sent to the
// sign-in form (303). Any other answer fails the test.
func signedIn(t testing.TB, b pageBrowser, s Site) bool {
	t.Helper()
	r := b.Get(s.URL(login.DonePath))
	switch r.Status {
	case http.StatusOK:
		return true
	case http.StatusSeeOther:
		return false
	}
	t.Fatalf("servertest: GET %s: %d\n%s", login.DonePath, r.Status, r.Body)
	return false
}

// sessionCSRF returns the CSRF token of b's session at school s, from the sign-out form of the
// signed-in page; a browser without a session fails the test.
func sessionCSRF(t testing.TB, b pageBrowser, s Site) string {
	t.Helper()
	return b.Get(s.URL(login.DonePath)).CSRF(t)
}

// Consent opens an authorization URL (the browser is signed in) and answers its consent page
// with decision ("approve" or "deny"); it returns the consent page and the answer to the POST.
func (b *Browser) Consent(authURL, decision string) (page, answer *Response) {
	b.env.t.Helper()
	return consent(b.env.t, b, authURL, decision)
}

// consent is Consent for any page browser.
func consent(t testing.TB, b pageBrowser, authURL, decision string) (page, answer *Response) {
	t.Helper()
	page = b.Get(authURL)
	f, ok := page.FormWith(login.CSRFField)
	if page.Status != http.StatusOK || !ok || !strings.Contains(f.Action, endpoint.Authorize) {
		t.Fatalf("servertest: consent page for %s: status %d (Location %q)\n%s", authURL, page.Status, page.Header.Get("Location"), page.Body)
	}
	f.Values.Set("decision", decision)
	return page, b.Post(f.Action, f.Values)
}

// Approve approves an authorization and returns the code the redirect carries.
func (b *Browser) Approve(authURL string) string {
	b.env.t.Helper()
	return approve(b.env.t, b, authURL)
}

// approve is Approve for any page browser. The redirect must also name the issuer (RFC 9207:
// the authorization URL's origin) and give back the request's state, as every client may check.
func approve(t testing.TB, b pageBrowser, authURL string) string {
	t.Helper()
	_, r := consent(t, b, authURL, "approve")
	loc, err := url.Parse(r.Header.Get("Location"))
	if r.Status != http.StatusSeeOther || err != nil || loc.Query().Get("code") == "" {
		t.Fatalf("servertest: approve: status %d, Location %q: %v\n%s", r.Status, r.Header.Get("Location"), errNoCode, r.Body)
	}
	asked, err := url.Parse(authURL)
	if err != nil {
		t.Fatal(err)
	}
	q := loc.Query()
	if q.Get("iss") != asked.Scheme+"://"+asked.Host || q.Get("state") != asked.Query().Get("state") {
		t.Fatalf("servertest: approve: redirect %s lacks the issuer %s://%s or the state", loc, asked.Scheme, asked.Host)
	}
	return q.Get("code")
}

// PKCE is a code verifier and its S256 challenge: package flow's, which the load command and the
// system tests send, so that every client of the tests makes them one way.
type PKCE = flow.PKCE

// NewPKCE returns a fresh verifier and challenge.
func NewPKCE() PKCE { return flow.NewPKCE() }

// AuthorizeParams are the query of a valid authorization request at school s for client c, with
// a fresh state and nonce (flow.AuthorizeQuery).
func AuthorizeParams(s Site, c Client, p PKCE, scopes ...string) url.Values {
	return flow.AuthorizeQuery(s.URL(""), c.ID, c.RedirectURI, strings.Join(scopes, " "),
		"state-"+flow.RandomString(9), "nonce-"+flow.RandomString(9), p)
}

// AuthorizeURL is the URL of a valid authorization request at school s for client c.
func AuthorizeURL(s Site, c Client, p PKCE, scopes ...string) string {
	return s.URL(endpoint.Authorize) + "?" + AuthorizeParams(s, c, p, scopes...).Encode()
}

// ClientFor returns school s's member client for identity and member scopes, its operator
// client when an operator scope is asked for.
func (s *School) ClientFor(scopes ...string) Client {
	for _, name := range scopes {
		if sc, ok := scope.Lookup(name); ok && sc.Audience == scope.Operator {
			return s.OperatorClient
		}
	}
	return s.MemberClient
}

// Tokens is the token endpoint's answer.
type Tokens struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
	IDToken      string `json:"id_token"`
	Scope        string `json:"scope"`
	// SchoolID, SchoolSubdomain and CreatedAt are what Proctor adds to every token answer: the
	// school the tokens are for and when they were issued (Unix seconds).
	SchoolID         int64  `json:"school_id"`
	SchoolSubdomain  string `json:"school_subdomain"`
	CreatedAt        int64  `json:"created_at"`
	Error            string `json:"error"`
	ErrorDescription string `json:"error_description"`
}

// Site is a school the OAuth helpers address: a *School of New, or the *school.School of a
// server a test composes on schools.New (Public, NewPublic). URL("") is its origin, the
// resource every request names.
type Site interface{ URL(path string) string }

// OAuth runs an OAuth client's part against a server: the authorization in a member's browser,
// the token endpoint's grants, revocation and UserInfo. Env has them for New's server (its
// browsers and clients, so every answer is recorded); NewOAuth makes them for a server a test
// composes on schools.New, so that its tests use these helpers instead of copies of them.
type OAuth struct {
	t testing.TB
	// browser returns a new browser with no cookies; client sends without cookies and does not
	// follow redirects.
	browser func() pageBrowser
	client  *http.Client
}

// NewOAuth returns the OAuth helpers for a server the test composes on schools.New: its
// browsers are Pages and its requests go through one transport of their own, whose idle
// connections are closed when the test ends.
func NewOAuth(t testing.TB) *OAuth {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &OAuth{t: t, browser: func() pageBrowser { return NewPages(t, tr) },
		client: &http.Client{Transport: tr, CheckRedirect: noRedirects, Timeout: time.Minute}}
}

// Send sends a request without cookies (a non-nil form form-encoded, header as name, value
// pairs) and reads the answer.
func (o *OAuth) Send(method, rawURL string, form url.Values, header ...string) *Response {
	o.t.Helper()
	return do(o.t, o.client, request(o.t, method, rawURL, form, header...))
}

// Code signs a new browser in at school s as email and approves an authorization for client c
// with scopes; it returns the code and the PKCE pair to exchange it with.
func (o *OAuth) Code(s Site, email string, c Client, scopes ...string) (string, PKCE) {
	o.t.Helper()
	b := o.browser()
	signIn(o.t, b, s.URL(""), email)
	p := NewPKCE()
	return approve(o.t, b, AuthorizeURL(s, c, p, scopes...)), p
}

// Exchange trades a code for tokens at school s (the client's secret is sent if it has one).
func (o *OAuth) Exchange(s Site, c Client, code string, p PKCE) (*Response, Tokens) {
	o.t.Helper()
	return o.TokenRequest(s, ExchangeForm(s, c, code, p))
}

// ExchangeForm is the token request Exchange sends, for a test that changes it before
// TokenRequest.
func ExchangeForm(s Site, c Client, code string, p PKCE) url.Values {
	form := url.Values{
		"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {c.RedirectURI},
		"client_id": {c.ID}, "code_verifier": {p.Verifier}, "resource": {s.URL("")},
	}
	if c.Secret != "" {
		form.Set("client_secret", c.Secret)
	}
	return form
}

// Refresh uses a refresh token at school s (the client's secret is sent if it has one).
func (o *OAuth) Refresh(s Site, c Client, refreshToken string) (*Response, Tokens) {
	o.t.Helper()
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refreshToken}, "client_id": {c.ID}, "resource": {s.URL("")}}
	if c.Secret != "" {
		form.Set("client_secret", c.Secret)
	}
	return o.TokenRequest(s, form)
}

// TokenRequest posts form to school s's token endpoint; an answer that is not JSON fails the
// test.
func (o *OAuth) TokenRequest(s Site, form url.Values) (*Response, Tokens) {
	o.t.Helper()
	r := o.Send(http.MethodPost, s.URL(endpoint.Token), form)
	var tr Tokens
	if !r.JSON(&tr) {
		o.t.Fatalf("servertest: token endpoint at %s: not JSON (%d): %s", s.URL(""), r.Status, r.Body)
	}
	return r, tr
}

// TokensFor runs a whole authorization at school s as email for client c with scopes (Code,
// then Exchange) and returns the tokens; anything but an access token fails the test.
func (o *OAuth) TokensFor(s Site, email string, c Client, scopes ...string) Tokens {
	o.t.Helper()
	code, p := o.Code(s, email, c, scopes...)
	r, tr := o.Exchange(s, c, code, p)
	if r.Status != http.StatusOK || tr.AccessToken == "" {
		o.t.Fatalf("servertest: exchange at %s for %s %v: %d %s", s.URL(""), c.ID, scopes, r.Status, r.Body)
	}
	return tr
}

// Revoke posts a revocation to school s.
func (o *OAuth) Revoke(s Site, c Client, token string) *Response {
	o.t.Helper()
	form := url.Values{"token": {token}, "client_id": {c.ID}}
	if c.Secret != "" {
		form.Set("client_secret", c.Secret)
	}
	return o.Send(http.MethodPost, s.URL(endpoint.Revoke), form)
}

// Userinfo calls school s's UserInfo with token ("": none) and returns the status: whether the
// token still works.
func (o *OAuth) Userinfo(s Site, token string) int {
	o.t.Helper()
	var header []string
	if token != "" {
		header = []string{"Authorization", "Bearer " + token}
	}
	return o.Send(http.MethodGet, s.URL(endpoint.Userinfo), nil, header...).Status
}

// Tokens runs a whole authorization at school s as email for scopes, with the school's member
// or operator client (ClientFor), and returns the tokens.
func (e *Env) Tokens(s *School, email string, scopes ...string) Tokens {
	e.t.Helper()
	return e.TokensFor(s, email, s.ClientFor(scopes...), scopes...)
}

// Introspect asks the internal listener about token at school s, with the API key.
func (e *Env) Introspect(s *School, token string) (*Response, resource.Introspection) {
	e.t.Helper()
	r := e.Send(http.MethodPost, e.InternalURL+resource.IntrospectPath,
		url.Values{"token": {token}, "school_id": {s.SchoolIDString()}}, "Authorization", "Bearer "+e.APIKey)
	var out resource.Introspection
	r.JSON(&out)
	return r, out
}

// SchoolIDString is the school id in decimal.
func (s *School) SchoolIDString() string { return strconv.FormatInt(s.SchoolID, 10) }

// Form is one HTML form as flow.ParseForms reads it: its method, absolute action, the values a
// browser would submit and its submit buttons (Form.Submission adds the one pressed).
type Form = flow.Form

// Button is a named submit button.
type Button = flow.Button

// ParseForms returns the forms of an HTML page fetched from base (flow.ParseForms).
func ParseForms(base *url.URL, body string) []Form { return flow.ParseForms(base, []byte(body)) }

// Links returns the absolute URLs of a page's <a href> links.
func (r *Response) Links() []string {
	var out []string
	z := html.NewTokenizer(strings.NewReader(r.Body))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return out
		}
		if tt != html.StartTagToken {
			continue
		}
		tok := z.Token()
		if tok.Data != "a" {
			continue
		}
		for _, a := range tok.Attr {
			if a.Key == "href" {
				if u, err := r.URL.Parse(a.Val); err == nil {
					out = append(out, u.String())
				}
			}
		}
	}
}
