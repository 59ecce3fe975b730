package resource

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/ory/fosite"
	"github.com/ory/fosite/token/hmac"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/tenant"
)

var (
	// ErrNoToken: the request carried no bearer token.
	ErrNoToken = errors.New("resource: no bearer token")
	// ErrInvalidToken: malformed, forged, unknown, revoked, expired or bound elsewhere.
	ErrInvalidToken = errors.New("resource: invalid token")
	// ErrNoVerdict: the token could not be checked (the database is unavailable).
	ErrNoVerdict = errors.New("resource: no verdict")
	// ErrOtherOrganization: the token's grant names no school, or another one, as its school_id
	// (spec, Authentication 8). It is an ErrInvalidToken whose challenge tells the client to run
	// the authorization again: a refresh would copy the same school_id.
	ErrOtherOrganization = fmt.Errorf("%w: issued for a different organization", ErrInvalidToken)
)

// Grant is what a verified access token grants.
type Grant struct {
	PairID    int64
	ClientID  string
	MemberID  int64 // 0: no resource owner
	Scopes    []string
	Resource  string
	ExpiresAt time.Time
	IssuedAt  time.Time
	// AMR is how the member had signed in when the grant was made (RFC 8176 values), from the
	// session stored with the token pair; empty from a RemoteVerifier or for an older grant.
	AMR []string
}

// HasScope reports whether the grant holds scope s.
func (g Grant) HasScope(s string) bool {
	for _, v := range g.Scopes {
		if v == s {
			return true
		}
	}
	return false
}

// Verifier checks bearer tokens for the school in the context.
type Verifier interface {
	Verify(ctx context.Context, token string) (Grant, error)
}

// TokenPairs is what a StoreVerifier reads and writes of the stored token pairs: the pair an
// access token names, and the first use of a pair, which commits its refresh rotation.
type TokenPairs interface {
	GetTokenPair(ctx context.Context, kind storage.TokenKind, signature string) (storage.TokenPair, error)
	MarkFirstUse(ctx context.Context, pairID int64, at time.Time) (bool, error)
}

// StoreVerifier verifies tokens against the shared store.
type StoreVerifier struct {
	store TokenPairs
	hmac  *hmac.HMACStrategy
	now   func() time.Time
}

// NewStoreVerifier returns a verifier keyed with the token HMAC key
// (config.Secret.Derive("token hmac"), the key the authorization server signs tokens with).
func NewStoreVerifier(st TokenPairs, hmacKey []byte, now func() time.Time) *StoreVerifier {
	if now == nil {
		now = time.Now
	}
	return &StoreVerifier{
		store: st,
		hmac:  &hmac.HMACStrategy{Config: &fosite.Config{GlobalSecret: hmacKey}},
		now:   now,
	}
}

// Verify implements Verifier.
func (v *StoreVerifier) Verify(ctx context.Context, token string) (Grant, error) {
	t, err := tenant.FromContext(ctx)
	if err != nil {
		return Grant{}, err
	}
	if token == "" {
		return Grant{}, ErrNoToken
	}
	if err := v.hmac.Validate(ctx, token); err != nil {
		return Grant{}, ErrInvalidToken
	}
	// Only access signatures are looked up: a refresh token presented as a bearer token finds
	// nothing.
	p, err := v.store.GetTokenPair(ctx, storage.AccessToken, v.hmac.Signature(token))
	switch {
	case errors.Is(err, storage.ErrNotFound):
		return Grant{}, ErrInvalidToken
	case err != nil:
		return Grant{}, fmt.Errorf("%w: %w", ErrNoVerdict, err)
	}
	now := v.now()
	if p.RevokedAt != nil || !p.AccessExpiresAt.After(now) || !boundTo(t, p.Resource) {
		return Grant{}, ErrInvalidToken
	}
	stored := grantSession(p.Data)
	if stored.Session.SchoolID != t.SchoolID {
		return Grant{}, ErrOtherOrganization
	}
	if p.FirstUsedAt == nil {
		// The first use commits the refresh rotation: it retires the pair this one replaced and
		// every other line minted from it (a forked refresh), unless another line was used
		// first, in which case this pair is revoked by now and MarkFirstUse finds no live pair
		// (docs/decisions.md, "Refresh rotation").
		_, err := v.store.MarkFirstUse(ctx, p.ID, now)
		switch {
		case errors.Is(err, storage.ErrNotFound):
			return Grant{}, ErrInvalidToken
		case err != nil:
			return Grant{}, fmt.Errorf("%w: %w", ErrNoVerdict, err)
		}
	}
	return Grant{
		PairID: p.ID, ClientID: p.ClientID, MemberID: p.MemberID, Scopes: p.Scopes,
		Resource: p.Resource, ExpiresAt: p.AccessExpiresAt, IssuedAt: p.RequestedAt,
		AMR: stored.Session.Claims.AMR,
	}, nil
}

// storedSession is what a verifier reads of the session stored with a token pair: its school and
// the ID token claims' amr.
type storedSession struct {
	Session struct {
		SchoolID int64 `json:"school_id"`
		Claims   struct {
			AMR []string `json:"amr"`
		} `json:"id_token_claims"`
	} `json:"session"`
}

// grantSession reads the session stored with a token pair (zero if it has none). The pair's Data
// is the request package authz serialised, with its Session under "session"; only the fields
// needed are decoded, from the row already read, so the check costs no query.
func grantSession(data []byte) storedSession {
	var stored storedSession
	if json.Unmarshal(data, &stored) != nil {
		return storedSession{}
	}
	return stored
}

// boundTo reports whether a token whose grant named resource may be used at the school's
// origin: the resource's scheme and host must be the school's (spec, Authentication 5).
func boundTo(t *tenant.Tenant, resource string) bool {
	u, err := url.Parse(resource)
	if err != nil || u.Host == "" {
		return false
	}
	scheme := strings.ToLower(u.Scheme)
	return scheme+"://"+config.HostKey(scheme, u.Host) == t.Origin[:strings.Index(t.Origin, "://")]+"://"+t.Host
}
