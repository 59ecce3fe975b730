package authz

import (
	"context"
	"errors"
	"time"

	"github.com/ory/fosite"
	"github.com/ory/fosite/token/hmac"

	"github.com/proctorhq/proctor/storage"
)

// revocation replaces fosite's TokenRevocationHandler, which would revoke a grant even for an
// expired access token. The spec's token-pair table:
//   - refresh token of a live pair: the grant is revoked;
//   - live access token: the grant is revoked;
//   - expired access token: nothing happens and the refresh token keeps working;
//   - an unknown token, or another client's: nothing happens.
//
// All of these answer 200 (RFC 7009 section 2.2). "The grant" is every pair issued from one
// authorization: RFC 7009 asks that revoking a refresh token also invalidate the access tokens
// of the same grant, and a user who revokes expects the whole session of that app to end.
type revocation struct {
	store pairRevoker
	hmac  *hmac.HMACStrategy
	now   func() time.Time
	// counters count the grants revoked here.
	counters Counters
}

func (h *revocation) RevokeToken(ctx context.Context, token string, hint fosite.TokenType, client fosite.Client) error {
	// The HMAC is checked before any lookup: a forged token built around a known signature
	// must not revoke anything.
	if err := h.hmac.Validate(ctx, token); err != nil {
		return nil
	}
	sig := h.hmac.Signature(token)
	kinds := []storage.TokenKind{storage.AccessToken, storage.RefreshToken}
	if hint == fosite.RefreshToken {
		kinds = []storage.TokenKind{storage.RefreshToken, storage.AccessToken}
	}
	for _, kind := range kinds {
		p, err := h.store.GetTokenPair(ctx, kind, sig)
		if errors.Is(err, storage.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if p.ClientID != client.GetID() || p.RevokedAt != nil {
			return nil
		}
		if kind == storage.AccessToken && !p.AccessExpiresAt.After(h.now()) {
			return nil
		}
		if _, err := h.store.RevokeGrant(ctx, p.RequestID, h.now()); err != nil {
			return err
		}
		h.counters.revoked(ctx)
		return nil
	}
	return nil
}
