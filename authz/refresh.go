package authz

import (
	"context"
	"crypto/subtle"
	"fmt"
	"slices"
	"strings"

	"github.com/ory/fosite"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/storage"
)

// The refresh grant: rotation, reuse and scope (docs/decisions.md, "Refresh rotation").
//
// A grant is a tree of token pairs: the code exchange's pair at the root, each refresh a child
// of the pair it replaced (storage.TokenPair.ReplacesPairID). The rule takes three steps:
//
//  1. A refresh of pair P revokes nothing. fosite's refresh handler reads P
//     (GetRefreshTokenSession), which notes P in the session it fills (Session.pairID); clones
//     that session into the new request; then, in one transaction the adapter opens
//     (transactions), calls RotateRefreshToken and CreateAccessTokenSession, which make the new
//     pair P's child (replacedPair). At commit the store locks P, re-checks it under the
//     lock and stores the child, in one call (storage.Grants.RefreshPair, unit.go).
//     Until the new access token is used, P's refresh token keeps working, so a client that
//     lost the response can retry (spec).
//  2. The first presentation of the new access token at an API retires P: the resource
//     verifier (package resource/verifier, which every API and introspection go through) calls the
//     store's RetireReplaced, which revokes P, every other pair minted from P (a fork: two
//     refreshes of P) and every pair minted from those, in one transaction that locks the
//     grant. fosite has no hook for a token's use, so this step cannot live here.
//  3. A refresh token whose pair is revoked is reuse: GetRefreshTokenSession answers
//     fosite.ErrInactiveToken, and fosite revokes the grant (DeleteRefreshTokenSession,
//     RevokeRefreshToken, RevokeAccessToken) in one transaction (RFC 9700 section 4.14.2).
//
// And a refresh's scope may narrow the grant (refreshScope).

// replacedPair is the pair a new pair replaces: the pair its session was read from. In a
// refresh that is the refresh token's pair (step 1); in a code exchange the session was read
// from the code, and the pair replaces none (0).
func replacedPair(s *Session) int64 { return s.pairID }

func (s *fositeStore) GetRefreshTokenSession(ctx context.Context, signature string, session fosite.Session) (fosite.Requester, error) {
	return s.getPair(ctx, storage.RefreshToken, signature, session)
}

// RotateRefreshToken runs inside the refresh transaction and revokes nothing (step 1). The lock
// that orders a concurrent revocation against this refresh, and the re-check of the old pair
// under it, are the store's, at commit (RefreshPair): a pair revoked since fosite read it
// issues nothing, and Commit answers fosite.ErrInactiveToken.
func (s *fositeStore) RotateRefreshToken(ctx context.Context, _, _ string) error {
	_, err := pendingFrom(ctx)
	return err
}

// CreateRefreshTokenSession adds the refresh half to the pair CreateAccessTokenSession made; both
// are stored at commit, in one row.
func (s *fositeStore) CreateRefreshTokenSession(ctx context.Context, signature, accessSignature string, r fosite.Requester) error {
	w, err := pendingFrom(ctx)
	if err != nil {
		return err
	}
	if w.pair == nil || subtle.ConstantTimeCompare([]byte(w.pair.AccessSignature), []byte(accessSignature)) != 1 {
		return fmt.Errorf("authz: a refresh token for a pair not stored in this transaction: %w", errNoTransaction)
	}
	w.pair.RefreshSignature = signature
	if t := r.GetSession().GetExpiresAt(fosite.RefreshToken); !t.IsZero() {
		w.pair.RefreshExpiresAt = &t
	}
	return nil
}

// DeleteRefreshTokenSession is called by fosite only when it detects the reuse of a refresh
// token (step 3), inside the transaction that revokes the grant: the event commits with the
// revocation.
func (s *fositeStore) DeleteRefreshTokenSession(ctx context.Context, signature string) error {
	ctx, err := s.within(ctx)
	if err != nil {
		return err
	}
	p, err := s.grants.GetTokenPair(ctx, storage.RefreshToken, signature)
	if err != nil {
		return fositeErr(err)
	}
	if _, err := s.grants.RevokeGrant(ctx, p.RequestID, s.now()); err != nil {
		return err
	}
	if err := s.audit.Record(ctx, audit.Event{
		Kind: audit.KindGrantRevoked, At: s.now(), Actor: audit.ActorSystem, SubjectID: p.MemberID,
		ClientID: p.ClientID, Scopes: p.Scopes, Detail: "reuse_detected",
	}); err != nil {
		return err
	}
	s.counters.refreshReused(ctx)
	return nil
}

func (s *fositeStore) RevokeRefreshToken(ctx context.Context, requestID string) error {
	return s.revokeGrant(ctx, requestID)
}

// refreshScope applies a refresh request's scope parameter, which fosite v0.49 ignores (it
// grants the original scopes whatever the request says). RFC 6749 section 6: the requested
// scope "MUST NOT include any scope not originally granted by the resource owner", and "if
// omitted is treated as equal to the scope originally granted". So a scope the grant does not
// hold is invalid_scope, and a narrower scope is honoured: the new pair carries only it, and so
// does every pair refreshed from that one. It runs after fosite's refresh handler, which has
// granted the original scopes by then.
type refreshScope struct{ requestCheck }

func (refreshScope) HandleTokenEndpointRequest(_ context.Context, r fosite.AccessRequester) error {
	requested := strings.Fields(r.GetRequestForm().Get("scope"))
	if len(requested) == 0 {
		return nil
	}
	req, ok := r.(*fosite.AccessRequest)
	if !ok {
		return fmt.Errorf("authz: unexpected access request type %T", r)
	}
	granted := req.GetGrantedScopes()
	var narrowed fosite.Arguments
	for _, s := range requested {
		if !slices.Contains(granted, s) {
			return fosite.ErrInvalidScope.WithHintf("The scope '%s' was not granted to this refresh token.", s)
		}
		if !slices.Contains(narrowed, s) {
			narrowed = append(narrowed, s)
		}
	}
	req.SetRequestedScopes(narrowed)
	req.GrantedScope = narrowed
	return nil
}

func (refreshScope) CanHandleTokenEndpointRequest(_ context.Context, r fosite.AccessRequester) bool {
	return r.GetGrantTypes().ExactOne("refresh_token")
}
