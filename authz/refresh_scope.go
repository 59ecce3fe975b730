package authz

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/ory/fosite"
)

// refreshScope applies a refresh request's scope parameter, which fosite v0.49 ignores (it
// grants the original scopes whatever the request says). RFC 6749 section 6: the requested
// scope "MUST NOT include any scope not originally granted by the resource owner", and "if
// omitted is treated as equal to the scope originally granted". So a scope the grant does not
// hold is invalid_scope, and a narrower scope is honoured: the new pair carries only it, and so
// does every pair refreshed from that one. It runs after fosite's refresh handler, which has
// granted the original scopes by then.
type refreshScope struct{}

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

func (refreshScope) PopulateTokenEndpointResponse(context.Context, fosite.AccessRequester, fosite.AccessResponder) error {
	return nil
}

func (refreshScope) CanSkipClientAuth(context.Context, fosite.AccessRequester) bool { return false }

func (refreshScope) CanHandleTokenEndpointRequest(_ context.Context, r fosite.AccessRequester) bool {
	return r.GetGrantTypes().ExactOne("refresh_token")
}
