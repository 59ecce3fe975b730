package mcp

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/resource"
	"github.com/proctorhq/proctor/school"
)

// caller is who sent one request: anonymous (grant nil) or the resource owner of a verified
// token. It is built once per request, before the SDK sees the request, and decides which tools
// that request's server has.
type caller struct {
	school *school.School
	grant  *resource.Grant
	// operator: the token's member holds an owner or admin role at the school now. Only looked
	// up when the token holds a scope some operator tool needs.
	operator bool
	// server answers the request: the one of the caller's set of tools (serverFor).
	server *sdk.Server
	now    time.Time
	store  Store
	log    *slog.Logger
}

// memberID is the token's resource owner (never 0: authenticate refuses such tokens).
func (c *caller) memberID() int64 { return c.grant.MemberID }

// refusal is why a caller may not call a tool, as the HTTP answer it gets.
type refusal struct {
	status      int
	code        string
	description string
	// scope goes into the challenge when asking for it can help: an MCP client re-authorizes
	// with it (step-up).
	scope string
}

// allows reports whether the caller may call a tool with need n: may without the refusal,
// which serverFor asks of every tool on every request.
func (c *caller) allows(n need) bool {
	switch {
	case n.scope == "":
		return true
	case c.grant == nil, !c.grant.HasScope(n.scope):
		return false
	}
	return !n.operator || c.operator
}

// may returns nil when the caller may call a tool with need n, else why not.
func (c *caller) may(n need) *refusal {
	switch {
	case c.allows(n):
		return nil
	case c.grant == nil:
		// No token: the challenge is where an MCP client starts its authorization (2025-06-18,
		// Authorization 2.3).
		return &refusal{http.StatusUnauthorized, "invalid_token",
			fmt.Sprintf("This tool needs an access token with the %s scope.", n.scope), n.scope}
	case !c.grant.HasScope(n.scope):
		return &refusal{http.StatusForbidden, "insufficient_scope",
			fmt.Sprintf("This tool needs the %s scope.", n.scope), n.scope}
	}
	// The token holds the scope of an operator tool, but its member is not an owner or admin
	// (any more). Re-authorizing cannot help (the authorization server grants operator scopes
	// to owners and admins only), so no scope is named.
	return &refusal{http.StatusForbidden, "insufficient_scope",
		"This tool needs an owner or admin role at this school.", ""}
}

// write answers the request with the refusal, as a Bearer challenge (RFC 6750 section 3) that
// names the origin's protected-resource metadata.
func (rf *refusal) write(w http.ResponseWriter, r *http.Request) {
	resource.MCP.Challenge(w, r, rf.status, rf.code, rf.description, rf.scope)
}

// authenticate builds the caller of a request. No Authorization header is an anonymous caller;
// anything else must be a valid token bound to a member. The member's roles are read only when
// the token holds a scope some operator tool needs. It writes the refusal itself and reports
// whether to go on.
func (h *Handler) authenticate(w http.ResponseWriter, r *http.Request, t *school.School) (*caller, bool) {
	a, rf := h.door.Authenticate(r, resource.Policy{Anonymous: true, RolesFor: operatorScopes})
	switch {
	case rf == nil:
	case rf.Kind == resource.NoMember:
		// /mcp authenticates the token's subject (spec, Authentication 7): a token without a
		// resource owner names nobody whose data could be read.
		resource.MCP.Challenge(w, r, http.StatusUnauthorized, "invalid_token",
			"The access token is not bound to a user; authorize as a member of this school.", "")
		return nil, false
	default:
		// 401 invalid_token with the metadata pointer, or 503 without a challenge (no verdict on
		// the token or on the member's roles).
		resource.MCP.WriteError(w, r, rf.Err)
		return nil, false
	}
	c := &caller{school: t, now: h.now(), store: h.store, log: h.log}
	if !a.Anonymous() {
		c.grant = &a.Grant
		c.operator = a.Operator()
	}
	return c, true
}

// sameOrigin reports whether a request may come from where its Origin header says (DNS
// rebinding and cross-site requests; MCP Streamable HTTP transport, "Security Warning"). A
// request without Origin (every non-browser client) passes; a browser page may only call its
// own school's endpoint. The Host header was already matched to the school by the server's
// school resolution, so a rebound name never reaches this handler.
func sameOrigin(r *http.Request, t *school.School) bool {
	origins := r.Header.Values("Origin")
	switch len(origins) {
	case 0:
		return true
	case 1:
	default:
		return false
	}
	u, err := url.Parse(origins[0])
	// An Origin header is an origin serialisation: no path beyond "/" (RFC 6454 section 6.1).
	return err == nil && (u.Path == "" || u.Path == "/") && t.SameOrigin(u)
}

// refuseOrigin answers a request from another origin.
func refuseOrigin(w http.ResponseWriter) {
	edge.WriteError(w, http.StatusForbidden, "invalid_request", "Requests from another origin are not accepted at this endpoint.")
}
