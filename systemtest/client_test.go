package systemtest

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"

	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/server/servertest"
)

// maxBody bounds what is read of one answer.
const maxBody = 4 << 20

// browser is one member's browser and app at once: a cookie jar holding the login session,
// shared by every replica it talks to, as a browser behind a load balancer would be.
type browser struct {
	s   *site
	jar http.CookieJar
}

func newBrowser(s *site) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{s: s, jar: jar}
}

// at is the browser talking to one replica.
type at struct {
	b      *browser
	r      *replica
	client *http.Client
}

// at returns the browser's client for replica r: URLs name the school's origin, connections go
// to r. Redirects are not followed: the flows read each Location themselves.
func (b *browser) at(r *replica) *at {
	return &at{b: b, r: r, client: &http.Client{
		Transport: r.transport, Jar: b.jar, Timeout: requestTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// response is an answer read in full.
type response struct {
	status int
	header http.Header
	body   []byte
}

// String describes the answer for a failure message: status and the start of the body.
func (r response) String() string {
	body := strings.Join(strings.Fields(string(r.body)), " ")
	if len(body) > 300 {
		body = body[:300] + "..."
	}
	return fmt.Sprintf("status %d: %s", r.status, body)
}

// oauthError is the "error" member of a JSON error body ("" if there is none).
func (r response) oauthError() string {
	var e struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal(r.body, &e)
	return e.Error
}

// transportError is a request that got no complete answer (refused, reset, cut off).
type transportError struct{ err error }

func (e *transportError) Error() string { return e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

// isTransport reports whether err is a failure to get an answer at all, as opposed to an
// answer that was not the one wanted.
func isTransport(err error) bool {
	var te *transportError
	return errors.As(err, &te)
}

func (a *at) do(req *http.Request) (response, error) {
	resp, err := a.client.Do(req)
	if err != nil {
		return response{}, &transportError{err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return response{}, &transportError{err}
	}
	return response{status: resp.StatusCode, header: resp.Header, body: body}, nil
}

func (a *at) url(path string) string { return a.b.s.origin + path }

func (a *at) get(ctx context.Context, rawURL string, header http.Header) (response, error) {
	return a.send(ctx, http.MethodGet, rawURL, "", nil, header)
}

func (a *at) post(ctx context.Context, rawURL, contentType string, body []byte, header http.Header) (response, error) {
	return a.send(ctx, http.MethodPost, rawURL, contentType, body, header)
}

// send makes the request (body, if not nil, of contentType, if not empty) with header's fields
// added, and sends it.
func (a *at) send(ctx context.Context, method, rawURL, contentType string, body []byte, header http.Header) (response, error) {
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

func (a *at) postForm(ctx context.Context, rawURL string, form url.Values) (response, error) {
	return a.post(ctx, rawURL, "application/x-www-form-urlencoded", []byte(form.Encode()), nil)
}

// login signs the browser in through the sign-in form.
func (a *at) login(ctx context.Context) error {
	loginURL := a.url("/login")
	page, err := a.get(ctx, loginURL, nil)
	if err != nil {
		return err
	}
	if page.status != http.StatusOK {
		return fmt.Errorf("GET /login at %s: %s", a.r.name, page)
	}
	f, err := formWith(loginURL, page.body, "csrf_token")
	if err != nil {
		return fmt.Errorf("GET /login at %s: %w", a.r.name, err)
	}
	f.Values.Set("email", memberEmail)
	f.Values.Set("password", a.b.s.password)
	resp, err := a.postForm(ctx, f.Action, f.Values)
	if err != nil {
		return err
	}
	if resp.status != http.StatusSeeOther && resp.status != http.StatusFound {
		return fmt.Errorf("POST /login at %s: %s", a.r.name, resp)
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

// consentPage asks for authorization (the member is signed in) and returns the consent page.
func (a *at) consentPage(ctx context.Context, clientID, scopes string, p pkce, state string) (authURL string, page response, err error) {
	q := url.Values{
		"response_type":         {"code"},
		"client_id":             {clientID},
		"redirect_uri":          {redirectURI},
		"scope":                 {scopes},
		"state":                 {state},
		"nonce":                 {randomString(12)},
		"code_challenge":        {p.challenge},
		"code_challenge_method": {"S256"},
		"resource":              {a.b.s.origin},
	}
	authURL = a.url(endpoint.Authorize) + "?" + q.Encode()
	page, err = a.get(ctx, authURL, nil)
	return authURL, page, err
}

// approve posts the approval of a consent page and returns the code from the redirect,
// checking state and iss (RFC 9207) as a client must.
func (a *at) approve(ctx context.Context, authURL string, page response, state string) (string, error) {
	if page.status != http.StatusOK {
		return "", fmt.Errorf("GET %s at %s: %s", endpoint.Authorize, a.r.name, page)
	}
	f, err := formWith(authURL, page.body, "csrf_token")
	if err != nil {
		return "", fmt.Errorf("consent page at %s: %w", a.r.name, err)
	}
	f.Values.Set("decision", "approve")
	resp, err := a.postForm(ctx, f.Action, f.Values)
	if err != nil {
		return "", err
	}
	if resp.status != http.StatusSeeOther && resp.status != http.StatusFound {
		return "", fmt.Errorf("POST %s at %s: %s", endpoint.Authorize, a.r.name, resp)
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
	case back.Get("state") != state || back.Get("iss") != a.b.s.origin:
		return "", errors.New("consent redirect: state or iss does not match")
	}
	return back.Get("code"), nil
}

// authorize runs consent and approval at this replica for the member client.
func (a *at) authorize(ctx context.Context, p pkce) (string, error) {
	return a.authorizeClient(ctx, a.b.s.clientID, memberScopes, p)
}

func (a *at) authorizeClient(ctx context.Context, clientID, scopes string, p pkce) (string, error) {
	state := randomString(12)
	authURL, page, err := a.consentPage(ctx, clientID, scopes, p, state)
	if err != nil {
		return "", err
	}
	return a.approve(ctx, authURL, page, state)
}

// tokens is the token endpoint's answer (RFC 6749 section 5.1).
type tokens struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	IDToken      string `json:"id_token"`
	TokenType    string `json:"token_type"`
}

// tokenRequest posts a token request and returns the raw answer.
func (a *at) tokenRequest(ctx context.Context, form url.Values) (response, error) {
	return a.postForm(ctx, a.url(endpoint.Token), form)
}

// parseTokens reads a 200 token response.
func parseTokens(what string, resp response) (tokens, error) {
	if resp.status != http.StatusOK {
		return tokens{}, fmt.Errorf("%s: %s", what, resp)
	}
	var tr tokens
	if err := json.Unmarshal(resp.body, &tr); err != nil {
		return tokens{}, fmt.Errorf("%s: %w", what, err)
	}
	if tr.AccessToken == "" || tr.RefreshToken == "" || !strings.EqualFold(tr.TokenType, "bearer") {
		return tokens{}, fmt.Errorf("%s: the answer lacks access_token, refresh_token or token_type Bearer", what)
	}
	return tr, nil
}

func exchangeForm(s *site, clientID, code string, p pkce) url.Values {
	return url.Values{
		"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirectURI},
		"client_id": {clientID}, "code_verifier": {p.verifier}, "resource": {s.origin},
	}
}

func refreshForm(s *site, clientID, refreshToken string) url.Values {
	return url.Values{
		"grant_type": {"refresh_token"}, "refresh_token": {refreshToken},
		"client_id": {clientID}, "resource": {s.origin},
	}
}

// exchange trades a member client's code for tokens; the answer must carry an ID token.
func (a *at) exchange(ctx context.Context, code string, p pkce) (tokens, error) {
	resp, err := a.tokenRequest(ctx, exchangeForm(a.b.s, a.b.s.clientID, code, p))
	if err != nil {
		return tokens{}, err
	}
	tr, err := parseTokens("code exchange at "+a.r.name, resp)
	if err == nil && tr.IDToken == "" {
		err = errors.New("code exchange at " + a.r.name + ": no id_token")
	}
	return tr, err
}

func (a *at) refresh(ctx context.Context, refreshToken string) (tokens, error) {
	resp, err := a.tokenRequest(ctx, refreshForm(a.b.s, a.b.s.clientID, refreshToken))
	if err != nil {
		return tokens{}, err
	}
	return parseTokens("refresh at "+a.r.name, resp)
}

// revoke revokes a token (RFC 7009) and returns the answer.
func (a *at) revoke(ctx context.Context, token, hint string) (response, error) {
	return a.postForm(ctx, a.url(endpoint.Revoke), url.Values{
		"token": {token}, "token_type_hint": {hint}, "client_id": {a.b.s.clientID},
	})
}

// grant runs a whole authorization at this replica: consent, code, exchange.
func (a *at) grant(ctx context.Context) (tokens, error) {
	p := newPKCE()
	code, err := a.authorize(ctx, p)
	if err != nil {
		return tokens{}, err
	}
	return a.exchange(ctx, code, p)
}

func bearer(token string) http.Header {
	return http.Header{"Authorization": {"Bearer " + token}}
}

// userinfo presents an access token at the UserInfo endpoint.
func (a *at) userinfo(ctx context.Context, accessToken string) (response, error) {
	return a.get(ctx, a.url(endpoint.Userinfo), bearer(accessToken))
}

// formWith returns the first form of the page at pageURL that has an input named field, its
// action made absolute (submit buttons are left for the caller to choose).
func formWith(pageURL string, page []byte, field string) (servertest.Form, error) {
	base, err := url.Parse(pageURL)
	if err != nil {
		return servertest.Form{}, err
	}
	for _, f := range servertest.ParseForms(base, string(page)) {
		if _, ok := f.Values[field]; ok {
			return f, nil
		}
	}
	return servertest.Form{}, fmt.Errorf("no form with %s on the page", field)
}

// jwks is a JSON Web Key Set of EC keys.
type jwks struct {
	Keys []struct {
		KID string `json:"kid"`
		Kty string `json:"kty"`
		Crv string `json:"crv"`
		X   string `json:"x"`
		Y   string `json:"y"`
	} `json:"keys"`
}

func (s jwks) kids() []string {
	var out []string
	for _, k := range s.Keys {
		out = append(out, k.KID)
	}
	return out
}

func (s jwks) has(kid string) bool {
	for _, k := range s.Keys {
		if k.KID == kid {
			return true
		}
	}
	return false
}

// idTokenKID returns the kid of a JWT's header.
func idTokenKID(token string) (string, error) {
	head, _, ok := strings.Cut(token, ".")
	if !ok {
		return "", errors.New("not a JWT")
	}
	b, err := base64.RawURLEncoding.DecodeString(head)
	if err != nil {
		return "", err
	}
	var h struct {
		Alg string `json:"alg"`
		KID string `json:"kid"`
	}
	if err := json.Unmarshal(b, &h); err != nil {
		return "", err
	}
	if h.Alg != "ES256" || h.KID == "" {
		return "", fmt.Errorf("header alg %q kid %q", h.Alg, h.KID)
	}
	return h.KID, nil
}

// verifyES256 checks a JWT's signature with the key its kid names in set.
func verifyES256(token string, set jwks) error {
	kid, err := idTokenKID(token)
	if err != nil {
		return err
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return errors.New("not a JWS in compact form")
	}
	for _, k := range set.Keys {
		if k.KID != kid {
			continue
		}
		if k.Kty != "EC" || k.Crv != "P-256" {
			return fmt.Errorf("key %s is %s %s, not EC P-256", kid, k.Kty, k.Crv)
		}
		x, err1 := base64.RawURLEncoding.DecodeString(k.X)
		y, err2 := base64.RawURLEncoding.DecodeString(k.Y)
		sig, err3 := base64.RawURLEncoding.DecodeString(parts[2])
		if err := errors.Join(err1, err2, err3); err != nil {
			return err
		}
		if len(sig) != 64 {
			return fmt.Errorf("signature of %d bytes, want 64", len(sig))
		}
		pub := &ecdsa.PublicKey{Curve: elliptic.P256(), X: new(big.Int).SetBytes(x), Y: new(big.Int).SetBytes(y)}
		sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
		if !ecdsa.Verify(pub, sum[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
			return fmt.Errorf("the signature does not verify with key %s", kid)
		}
		return nil
	}
	return fmt.Errorf("kid %s is not in the JWKS %v", kid, set.kids())
}

// fetchJWKS reads the school's JWKS from one replica.
func (a *at) fetchJWKS(ctx context.Context) (jwks, response, error) {
	resp, err := a.get(ctx, a.url(endpoint.JWKS), nil)
	if err != nil {
		return jwks{}, resp, err
	}
	if resp.status != http.StatusOK {
		return jwks{}, resp, fmt.Errorf("JWKS at %s: %s", a.r.name, resp)
	}
	var set jwks
	if err := json.Unmarshal(resp.body, &set); err != nil {
		return jwks{}, resp, fmt.Errorf("JWKS at %s: %w", a.r.name, err)
	}
	return set, resp, nil
}
