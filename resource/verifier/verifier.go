package verifier

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ory/fosite"
	"github.com/ory/fosite/token/hmac"

	"github.com/proctorhq/proctor/resource"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
)

// Pairs is what a Verifier reads and writes: the pair of a presented access token, and
// the step of refresh rotation that a pair's first use takes.
type Pairs interface {
	GetTokenPair(ctx context.Context, kind storage.TokenKind, signature string) (storage.TokenPair, error)
	RetireReplaced(ctx context.Context, pairID int64, at time.Time) (first bool, err error)
}

// Verifier verifies tokens against the token pairs in the shared database: the verifier of the
// processes that run the authorization server.
type Verifier struct {
	store Pairs
	hmac  *hmac.HMACStrategy
	now   func() time.Time
}

// New returns a verifier keyed with the token HMAC key
// (config.Secret.Derive("token hmac"), the key the authorization server signs tokens with).
func New(st Pairs, hmacKey []byte, now func() time.Time) *Verifier {
	if now == nil {
		now = time.Now
	}
	return &Verifier{
		store: st,
		hmac:  &hmac.HMACStrategy{Config: &fosite.Config{GlobalSecret: hmacKey}},
		now:   now,
	}
}

// Verify implements resource.Verifier.
func (v *Verifier) Verify(ctx context.Context, token string) (resource.Grant, error) {
	t, err := school.FromContext(ctx)
	if err != nil {
		return resource.Grant{}, err
	}
	if token == "" {
		return resource.Grant{}, resource.ErrNoToken
	}
	if err := v.hmac.Validate(ctx, token); err != nil {
		return resource.Grant{}, resource.ErrInvalidToken
	}
	// Only access signatures are looked up: a refresh token presented as a bearer token finds
	// nothing.
	p, err := v.store.GetTokenPair(ctx, storage.AccessToken, v.hmac.Signature(token))
	if err != nil {
		return resource.Grant{}, verdict(err)
	}
	now := v.now()
	if p.RevokedAt != nil || !p.AccessExpiresAt.After(now) || !resource.BoundTo(t, p.Resource) {
		return resource.Grant{}, resource.ErrInvalidToken
	}
	if p.SchoolID != t.SchoolID {
		return resource.Grant{}, resource.ErrOtherOrganization
	}
	if p.FirstUsedAt == nil {
		// The first use commits the refresh rotation: it retires the pair this one replaced and
		// every other line minted from it (a forked refresh), unless another line was used
		// first, in which case this pair is revoked by now and RetireReplaced finds no live
		// pair (authz/refresh.go; docs/decisions.md, "Refresh rotation").
		if _, err := v.store.RetireReplaced(ctx, p.ID, now); err != nil {
			return resource.Grant{}, verdict(err)
		}
	}
	return resource.Grant{
		PairID: p.ID, ClientID: p.ClientID, MemberID: p.MemberID, Scopes: p.Scopes,
		Resource: p.Resource, ExpiresAt: p.AccessExpiresAt, IssuedAt: p.RequestedAt,
		AMR: p.AMR,
	}, nil
}

// verdict is what a failed store call says of the token: a pair the store does not find (or no
// longer finds live) makes it invalid; any other failure leaves no verdict.
func verdict(err error) error {
	if errors.Is(err, storage.ErrNotFound) {
		return resource.ErrInvalidToken
	}
	return fmt.Errorf("%w: %w", resource.ErrNoVerdict, err)
}
