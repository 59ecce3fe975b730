package operator

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humamux"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/resource"
	"github.com/proctorhq/proctor/storage"
)

// scopeKey names the operation metadata entry holding the scope an operation requires.
const scopeKey = "proctor.scope"

// caller is who an authorized request acts for.
type caller struct {
	grant resource.Grant
	roles []storage.Role // at the request's school, most powerful first
	// userAgent is the request's, for the security events the operation records.
	userAgent string
}

type callerKey struct{}

// callerFrom returns the request's caller; authorize put it there before any handler runs.
func callerFrom(ctx context.Context) caller {
	c, _ := ctx.Value(callerKey{}).(caller)
	return c
}

// by is the caller as the security event log names who acted: the operator, the client
// their token was issued to, and the request's User-Agent (the Recorder adds the address and
// request id from the context).
func (c caller) by() audit.Event {
	return audit.Event{Actor: audit.ActorOperator, ActorID: c.grant.MemberID, ClientID: c.grant.ClientID, UserAgent: c.userAgent}
}

// memberID returns the caller's member id, for the rows that record who wrote them.
func (c caller) memberID() *int64 {
	id := c.grant.MemberID
	return &id
}

// authorize runs before every operation, ahead of huma's own parsing, so an unauthorized
// request learns nothing about the operation's input rules. The questions are the resource
// door's (resource.Door.Authenticate, shared with the Member API and /mcp); the answers are
// this API's. In order:
//
//  1. the bearer token, through the shared resource.Verifier (origin binding, school_id,
//     lifetime, revocation and the refresh rotation are all its business): 401 invalid_token,
//     or 503 temporarily_unavailable when no verdict could be reached;
//  2. a user: operator tokens act for a person, so a token without a resource owner is invalid
//     here (401), as at the Member API;
//  3. the operation's scope: 403 insufficient_scope naming the scope, so that a client can
//     step up (RFC 6750 section 3.1);
//  4. the user's role, read on every request rather than trusted from the time of consent: an
//     owner or admin demoted since is refused at once (403 insufficient_scope, without a scope
//     to ask for, since no scope would help).
//
// The refusals are the resource server's Bearer challenges (resource.Challenge), not problem
// documents: clients treat protected resources alike.
func (h *Handler) authorize(ctx huma.Context, next func(huma.Context)) {
	r, w := humamux.Unwrap(ctx)
	// Every answer here is about one school's private data.
	w.Header().Set("Cache-Control", "no-store")
	need, _ := ctx.Operation().Metadata[scopeKey].(string)

	a, rf := h.door.Authenticate(r, resource.Policy{Scopes: []string{need}, Operator: true})
	if rf != nil {
		switch rf.Kind {
		case resource.MissingScope:
			resource.Challenge(w, r, http.StatusForbidden, "insufficient_scope",
				"This operation needs the "+rf.Scope+" scope.", rf.Scope)
		case resource.RolesUnavailable:
			edge.WriteError(w, http.StatusServiceUnavailable, "temporarily_unavailable",
				"The request could not be authorized right now; retry shortly.")
		case resource.RoleRefused:
			resource.Challenge(w, r, http.StatusForbidden, "insufficient_scope",
				"The token's user is not an owner or admin of this school.", "")
		default:
			resource.WriteError(w, r, rf.Err)
		}
		return
	}
	ua := audit.FromRequest(r, audit.Event{}).UserAgent
	next(huma.WithValue(ctx, callerKey{}, caller{grant: a.Grant, roles: a.Roles, userAgent: ua}))
}
