package flow

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/proctorhq/proctor/endpoint"
)

// PKCE is a code verifier and its S256 challenge (RFC 7636).
type PKCE struct{ Verifier, Challenge string }

// NewPKCE returns a fresh verifier (32 random bytes) and its challenge.
func NewPKCE() PKCE {
	v := RandomString(32)
	sum := sha256.Sum256([]byte(v))
	return PKCE{Verifier: v, Challenge: base64.RawURLEncoding.EncodeToString(sum[:])}
}

// AuthorizeQuery is the query of an authorization request (code flow, PKCE S256) for client
// clientID with redirectURI at the school at origin, which is also the resource asked for;
// nonce is left out when "".
func AuthorizeQuery(origin, clientID, redirectURI, scope, state, nonce string, p PKCE) url.Values {
	q := url.Values{
		"response_type":         {"code"},
		"client_id":             {clientID},
		"redirect_uri":          {redirectURI},
		"scope":                 {scope},
		"state":                 {state},
		"code_challenge":        {p.Challenge},
		"code_challenge_method": {"S256"},
		"resource":              {origin},
	}
	if nonce != "" {
		q.Set("nonce", nonce)
	}
	return q
}

// RandomString is n random bytes, base64url-encoded.
func RandomString(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// ConsentPage asks for authorization for clientID (the member is signed in) and returns the
// authorization URL and its answer, the consent page.
func (c *Client) ConsentPage(ctx context.Context, clientID, scope string, p PKCE, state string) (authURL string, page Response, err error) {
	q := AuthorizeQuery(c.Origin, clientID, c.RedirectURI, scope, state, RandomString(12), p)
	authURL = c.URL(endpoint.Authorize) + "?" + q.Encode()
	page, err = c.Get(ctx, authURL, nil)
	return authURL, page, err
}

// Approve posts the approval of a consent page and returns the code from the redirect, checking
// state and iss (RFC 9207) as a client must.
func (c *Client) Approve(ctx context.Context, authURL string, page Response, state string) (string, error) {
	resp, err := c.submit(ctx, authURL, page, endpoint.Authorize, "consent page", func(v url.Values) {
		v.Set("decision", "approve")
	})
	if err != nil {
		return "", err
	}
	if resp.Status != http.StatusSeeOther && resp.Status != http.StatusFound {
		return "", resp.Err(c.at("POST " + endpoint.Authorize))
	}
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		return "", fmt.Errorf("consent redirect: %w", err)
	}
	back := loc.Query()
	switch {
	case back.Get("error") != "":
		return "", fmt.Errorf("consent redirect: error %s: %s", back.Get("error"), back.Get("error_description"))
	case back.Get("code") == "":
		return "", errors.New("consent redirect: no code")
	case back.Get("state") != state || back.Get("iss") != c.Origin:
		return "", errors.New("consent redirect: state or iss does not match")
	}
	return back.Get("code"), nil
}

// Authorize runs consent and approval for the member app and returns the code.
func (c *Client) Authorize(ctx context.Context, p PKCE) (string, error) {
	return c.AuthorizeClient(ctx, c.ClientID, c.Scope, p)
}

// AuthorizeClient runs consent and approval for clientID asking for scope.
func (c *Client) AuthorizeClient(ctx context.Context, clientID, scope string, p PKCE) (string, error) {
	state := RandomString(12)
	authURL, page, err := c.ConsentPage(ctx, clientID, scope, p, state)
	if err != nil {
		return "", err
	}
	return c.Approve(ctx, authURL, page, state)
}

// Tokens is the token endpoint's answer (RFC 6749 section 5.1).
type Tokens struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	IDToken      string `json:"id_token"`
	TokenType    string `json:"token_type"`
}

// ParseTokens reads the answer to the token request what, which must be a success with an access
// token, a refresh token and token type Bearer.
func ParseTokens(what string, resp Response) (Tokens, error) {
	if resp.Status != http.StatusOK {
		return Tokens{}, resp.Err(what)
	}
	var tr Tokens
	if err := json.Unmarshal(resp.Body, &tr); err != nil {
		return Tokens{}, fmt.Errorf("%s: %w", what, err)
	}
	if tr.AccessToken == "" || tr.RefreshToken == "" || !strings.EqualFold(tr.TokenType, "bearer") {
		return Tokens{}, fmt.Errorf("%s: the answer lacks access_token, refresh_token or token_type Bearer", what)
	}
	return tr, nil
}

// ExchangeForm is the request that trades clientID's code for tokens with the PKCE verifier.
func (c *Client) ExchangeForm(clientID, code string, p PKCE) url.Values {
	return url.Values{
		"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {c.RedirectURI},
		"client_id": {clientID}, "code_verifier": {p.Verifier}, "resource": {c.Origin},
	}
}

// RefreshForm is the request that refreshes clientID's refresh token.
func (c *Client) RefreshForm(clientID, refreshToken string) url.Values {
	return url.Values{
		"grant_type": {"refresh_token"}, "refresh_token": {refreshToken},
		"client_id": {clientID}, "resource": {c.Origin},
	}
}

// TokenRequest posts a token request and returns the raw answer.
func (c *Client) TokenRequest(ctx context.Context, form url.Values) (Response, error) {
	return c.PostForm(ctx, c.URL(endpoint.Token), form)
}

func (c *Client) tokens(ctx context.Context, what string, form url.Values) (Tokens, error) {
	resp, err := c.TokenRequest(ctx, form)
	if err != nil {
		return Tokens{}, err
	}
	return ParseTokens(c.at(what), resp)
}

// Exchange trades the member app's code for tokens. The app asks for openid, so an answer
// without an ID token is a failure.
func (c *Client) Exchange(ctx context.Context, code string, p PKCE) (Tokens, error) {
	tr, err := c.tokens(ctx, "code exchange", c.ExchangeForm(c.ClientID, code, p))
	if err == nil && tr.IDToken == "" {
		err = errors.New(c.at("code exchange") + ": no id_token")
	}
	return tr, err
}

// Refresh refreshes the member app's refresh token.
func (c *Client) Refresh(ctx context.Context, refreshToken string) (Tokens, error) {
	return c.tokens(ctx, "refresh", c.RefreshForm(c.ClientID, refreshToken))
}

// Revoke revokes a token of the member app (RFC 7009) and returns the answer.
func (c *Client) Revoke(ctx context.Context, token, hint string) (Response, error) {
	return c.PostForm(ctx, c.URL(endpoint.Revoke), url.Values{
		"token": {token}, "token_type_hint": {hint}, "client_id": {c.ClientID},
	})
}

// Grant runs a whole authorization of the member app (consent, code, exchange) and returns the
// tokens.
func (c *Client) Grant(ctx context.Context) (Tokens, error) {
	p := NewPKCE()
	code, err := c.Authorize(ctx, p)
	if err != nil {
		return Tokens{}, err
	}
	return c.Exchange(ctx, code, p)
}
