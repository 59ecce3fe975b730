package systemtest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/bench/flow"
	"github.com/proctorhq/proctor/endpoint"
)

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

// at is the browser talking to one replica (flow.Client): URLs name the school's origin,
// connections go to the replica.
type at struct {
	*flow.Client
	b *browser
	r *replica
}

// at returns the browser's client for replica r.
func (b *browser) at(r *replica) *at {
	return &at{b: b, r: r, Client: &flow.Client{
		HTTP:   flow.NewHTTP(r.transport, b.jar, requestTimeout),
		Origin: b.s.origin, ClientID: b.s.clientID, RedirectURI: redirectURI, Scope: memberScopes,
		Where: r.name,
	}}
}

// login signs the browser in as the member through the sign-in form.
func (a *at) login(ctx context.Context) error {
	return a.Login(ctx, memberEmail, a.b.s.password)
}

// expectUserinfo presents access at c's replica and wants the status want.
func expectUserinfo(ctx context.Context, t *testing.T, c *at, what, access string, want int) {
	t.Helper()
	resp, err := c.Userinfo(ctx, access)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != want {
		t.Errorf("%s: %s, want %d", what, resp, want)
	}
}

// expectRefresh presents the refresh token at c's replica and wants a success if usable, else
// 400 invalid_grant.
func expectRefresh(ctx context.Context, t *testing.T, c *at, what, refresh string, usable bool) {
	t.Helper()
	resp, err := c.TokenRequest(ctx, c.RefreshForm(c.ClientID, refresh))
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case usable && resp.Status != http.StatusOK:
		t.Errorf("%s: %s, want 200", what, resp)
	case !usable && (resp.Status != http.StatusBadRequest || resp.OAuthError() != "invalid_grant"):
		t.Errorf("%s: %s, want 400 invalid_grant", what, resp)
	}
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
func (a *at) fetchJWKS(ctx context.Context) (jwks, flow.Response, error) {
	resp, err := a.Get(ctx, a.URL(endpoint.JWKS), nil)
	if err != nil {
		return jwks{}, resp, err
	}
	if resp.Status != http.StatusOK {
		return jwks{}, resp, fmt.Errorf("JWKS at %s: %s", a.r.name, resp)
	}
	var set jwks
	if err := json.Unmarshal(resp.Body, &set); err != nil {
		return jwks{}, resp, fmt.Errorf("JWKS at %s: %w", a.r.name, err)
	}
	return set, resp, nil
}
