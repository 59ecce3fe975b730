package bench

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"time"

	"golang.org/x/net/html"

	"github.com/proctorhq/proctor/endpoint"
)

// requestTimeout bounds one request; a server that stops answering fails the run rather than
// hanging it.
const requestTimeout = 30 * time.Second

// maxBody bounds what is read of one answer (the curriculum is a few hundred kilobytes).
const maxBody = 16 << 20

// newTransport is the connection pool every browser of a run shares. It dials loopback only and
// never goes through a proxy (the zero Proxy ignores HTTP_PROXY), and keeps enough idle
// connections for every worker, so that the figures are not a measure of TCP handshakes.
func newTransport(concurrency int) *http.Transport {
	return &http.Transport{
		DialContext:         loopbackDialer().DialContext,
		MaxIdleConns:        4 * concurrency,
		MaxIdleConnsPerHost: 4 * concurrency,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
}

// browser is one member's browser and app at once: a cookie jar holding its login session, and
// the token requests a native app sends. Redirects are not followed: the flow reads each
// Location itself, as the app's loopback listener would receive the code.
type browser struct {
	s      *fixture
	client *http.Client
}

func newBrowser(s *fixture, tr http.RoundTripper) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{s: s, client: &http.Client{
		Transport: tr, Jar: jar, Timeout: requestTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// response is an answer read in full.
type response struct {
	status int
	header http.Header
	body   []byte
}

// statusError describes an unexpected answer: the endpoint, the status and the start of the
// body (an OAuth error object or an error page; never a token, which only a success carries).
func (r response) statusError(what string) error {
	body := strings.Join(strings.Fields(string(r.body)), " ")
	if len(body) > 160 {
		body = body[:160] + "..."
	}
	return fmt.Errorf("%s: status %d: %s", what, r.status, body)
}

func (a *browser) do(req *http.Request) (response, error) {
	resp, err := a.client.Do(req)
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return response{}, err
	}
	return response{status: resp.StatusCode, header: resp.Header, body: body}, nil
}

func (a *browser) get(ctx context.Context, rawURL string, header http.Header) (response, error) {
	return a.send(ctx, http.MethodGet, rawURL, "", nil, header)
}

func (a *browser) post(ctx context.Context, rawURL, contentType string, body []byte, header http.Header) (response, error) {
	return a.send(ctx, http.MethodPost, rawURL, contentType, body, header)
}

// send makes the request (body, if not nil, of contentType, if not empty) with header's fields
// added, and sends it.
func (a *browser) send(ctx context.Context, method, rawURL, contentType string, body []byte, header http.Header) (response, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, rawURL, r)
	if err != nil {
		return response{}, err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return a.do(req)
}

func (a *browser) postForm(ctx context.Context, rawURL string, form url.Values) (response, error) {
	return a.post(ctx, rawURL, "application/x-www-form-urlencoded", []byte(form.Encode()), nil)
}

func (a *browser) url(path string) string { return a.s.origin + path }

// login signs the browser in as email through the sign-in form.
func (a *browser) login(ctx context.Context, email string) error {
	loginURL := a.url("/login")
	page, err := a.get(ctx, loginURL, nil)
	if err != nil {
		return err
	}
	if page.status != http.StatusOK {
		return page.statusError("GET /login")
	}
	f, err := formWith(page.body, "csrf_token")
	if err != nil {
		return fmt.Errorf("GET /login: %w", err)
	}
	f.values.Set("email", email)
	f.values.Set("password", a.s.password)
	resp, err := a.postForm(ctx, resolve(loginURL, f.action), f.values)
	if err != nil {
		return err
	}
	if resp.status != http.StatusSeeOther && resp.status != http.StatusFound {
		return resp.statusError("POST /login as " + email)
	}
	return nil
}

// logout signs the browser out through the sign-out form: GET /logout (the confirmation page)
// and POST of it with its csrf_token, which deletes the session.
func (a *browser) logout(ctx context.Context) error {
	logoutURL := a.url("/logout")
	page, err := a.get(ctx, logoutURL, nil)
	if err != nil {
		return err
	}
	if page.status != http.StatusOK {
		return page.statusError("GET /logout")
	}
	f, err := formWith(page.body, "csrf_token")
	if err != nil {
		return fmt.Errorf("GET /logout: %w", err)
	}
	resp, err := a.postForm(ctx, resolve(logoutURL, f.action), f.values)
	if err != nil {
		return err
	}
	if resp.status != http.StatusOK {
		return resp.statusError("POST /logout")
	}
	return nil
}

// pkce is a code verifier and its S256 challenge (RFC 7636).
type pkce struct{ verifier, challenge string }

func newPKCE() pkce {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	v := base64.RawURLEncoding.EncodeToString(b)
	sum := sha256.Sum256([]byte(v))
	return pkce{verifier: v, challenge: base64.RawURLEncoding.EncodeToString(sum[:])}
}

// authorize runs the browser part of the flow for a signed-in member: GET the authorization
// endpoint (the consent page), POST the approval with the page's csrf_token, and read the code
// from the redirect, checking state and iss (RFC 9207) as a client must.
func (a *browser) authorize(ctx context.Context, p pkce) (string, error) {
	state := randomHex(8)
	q := url.Values{
		"response_type":         {"code"},
		"client_id":             {a.s.clientID},
		"redirect_uri":          {benchRedirectURI},
		"scope":                 {benchScopeList()},
		"state":                 {state},
		"nonce":                 {randomHex(8)},
		"code_challenge":        {p.challenge},
		"code_challenge_method": {"S256"},
		"resource":              {a.s.origin},
	}
	authURL := a.url(endpoint.Authorize) + "?" + q.Encode()
	page, err := a.get(ctx, authURL, nil)
	if err != nil {
		return "", err
	}
	if page.status != http.StatusOK {
		return "", page.statusError("GET " + endpoint.Authorize)
	}
	f, err := formWith(page.body, "csrf_token")
	if err != nil {
		return "", fmt.Errorf("consent page: %w", err)
	}
	f.values.Set("decision", "approve")
	resp, err := a.postForm(ctx, resolve(authURL, f.action), f.values)
	if err != nil {
		return "", err
	}
	if resp.status != http.StatusSeeOther && resp.status != http.StatusFound {
		return "", resp.statusError("POST " + endpoint.Authorize)
	}
	loc, err := url.Parse(resp.header.Get("Location"))
	if err != nil {
		return "", fmt.Errorf("consent redirect: %w", err)
	}
	back := loc.Query()
	switch {
	case back.Get("error") != "":
		return "", fmt.Errorf("consent redirect: error %s: %s", back.Get("error"), back.Get("error_description"))
	case back.Get("code") == "":
		return "", errors.New("consent redirect: no code")
	case back.Get("state") != state || back.Get("iss") != a.s.origin:
		return "", errors.New("consent redirect: state or iss does not match")
	}
	return back.Get("code"), nil
}

// tokenResponse is the token endpoint's answer (RFC 6749 section 5.1).
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	IDToken      string `json:"id_token"`
	TokenType    string `json:"token_type"`
}

func (a *browser) token(ctx context.Context, what string, form url.Values) (tokenResponse, error) {
	resp, err := a.postForm(ctx, a.url(endpoint.Token), form)
	if err != nil {
		return tokenResponse{}, err
	}
	if resp.status != http.StatusOK {
		return tokenResponse{}, resp.statusError(what)
	}
	var tr tokenResponse
	if err := json.Unmarshal(resp.body, &tr); err != nil {
		return tokenResponse{}, fmt.Errorf("%s: %w", what, err)
	}
	if tr.AccessToken == "" || tr.RefreshToken == "" || !strings.EqualFold(tr.TokenType, "bearer") {
		return tokenResponse{}, fmt.Errorf("%s: the answer lacks access_token, refresh_token or token_type Bearer", what)
	}
	return tr, nil
}

// exchange trades a code for tokens with the PKCE verifier. The scope includes openid and the
// bench school issues ID tokens, so an answer without id_token is a failure.
func (a *browser) exchange(ctx context.Context, code string, p pkce) (tokenResponse, error) {
	tr, err := a.token(ctx, "code exchange", url.Values{
		"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {benchRedirectURI},
		"client_id": {a.s.clientID}, "code_verifier": {p.verifier}, "resource": {a.s.origin},
	})
	if err == nil && tr.IDToken == "" {
		err = errors.New("code exchange: no id_token")
	}
	return tr, err
}

func (a *browser) refresh(ctx context.Context, refreshToken string) (tokenResponse, error) {
	return a.token(ctx, "refresh", url.Values{
		"grant_type": {"refresh_token"}, "refresh_token": {refreshToken},
		"client_id": {a.s.clientID}, "resource": {a.s.origin},
	})
}

func (a *browser) revoke(ctx context.Context, refreshToken string) error {
	resp, err := a.postForm(ctx, a.url(endpoint.Revoke), url.Values{
		"token": {refreshToken}, "token_type_hint": {"refresh_token"}, "client_id": {a.s.clientID},
	})
	if err != nil {
		return err
	}
	if resp.status != http.StatusOK {
		return resp.statusError("revoke")
	}
	return nil
}

// grant runs a whole authorization (consent, code, exchange) and returns the tokens.
func (a *browser) grant(ctx context.Context) (tokenResponse, error) {
	p := newPKCE()
	code, err := a.authorize(ctx, p)
	if err != nil {
		return tokenResponse{}, err
	}
	return a.exchange(ctx, code, p)
}

// htmlForm is one form of a page: where it posts and its inputs' values.
type htmlForm struct {
	action string
	values url.Values
}

// formWith returns the first form of page that has an input named field, with its action and
// its inputs (hidden ones included; submit buttons are left for the caller to choose).
func formWith(page []byte, field string) (htmlForm, error) {
	var forms []htmlForm
	z := html.NewTokenizer(bytes.NewReader(page))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		tok := z.Token()
		attr := func(name string) string {
			for _, a := range tok.Attr {
				if a.Key == name {
					return a.Val
				}
			}
			return ""
		}
		switch {
		case tok.Data == "form":
			forms = append(forms, htmlForm{action: attr("action"), values: url.Values{}})
		case tok.Data == "input" && len(forms) > 0 && attr("name") != "" && attr("type") != "submit":
			forms[len(forms)-1].values.Set(attr("name"), attr("value"))
		}
	}
	for _, f := range forms {
		if _, ok := f.values[field]; ok {
			return f, nil
		}
	}
	return htmlForm{}, fmt.Errorf("no form with %s on the page", field)
}

// resolve makes a form action absolute against the page's URL.
func resolve(base, ref string) string {
	b, err := url.Parse(base)
	if err != nil {
		return ref
	}
	r, err := url.Parse(ref)
	if err != nil {
		return ref
	}
	return b.ResolveReference(r).String()
}
