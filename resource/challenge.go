package resource

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/scope"
)

// BearerToken returns the token of an "Authorization: Bearer" header (RFC 6750 section 2.1),
// "" if there is none, and an error for a malformed header.
func BearerToken(r *http.Request) (string, error) {
	h := r.Header.Values("Authorization")
	switch len(h) {
	case 0:
		return "", nil
	case 1:
	default:
		return "", ErrInvalidToken
	}
	scheme, token, ok := strings.Cut(h[0], " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", ErrInvalidToken
	}
	token = strings.TrimLeft(token, " ")
	// b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
	if token == "" || len(token) > 4096 || strings.ContainsFunc(token, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-._~+/=", c))
	}) {
		return "", ErrInvalidToken
	}
	return token, nil
}

// Protected is a protected resource on every school's origin, as its Bearer challenges describe
// it to a client.
type Protected struct {
	// Path is the resource's path on the origin ("" for the origin itself). The challenges'
	// resource_metadata names the path-specific metadata, endpoint.ProtectedResourceMetadata+Path (RFC 9728 section
	// 3.1), whose scopes_supported fits this resource.
	Path string
	// Scopes are named in every 401 challenge that names no scope of its own: the scopes a
	// client can get for this resource. An MCP client takes the challenge's scope before the
	// metadata's scopes_supported (MCP 2025-11-25, Authorization, scope selection), so a 401 for
	// a dead token sends it back to ask for exactly these. Nil names none.
	Scopes []string
}

var (
	// Origin is the origin itself: its challenges name the root metadata and no scope
	// (userinfo, the operator REST API, whose clients are registered by the school with their
	// scopes).
	Origin = Protected{}
	// MCP is {base_url}/mcp and MemberAPI the Member API. Both serve one member's data with
	// the member scopes, the only scopes a member client (pre-registered public client or
	// Client ID Metadata Document, the clients that discover their way here) can get: naming
	// the operator scopes /mcp also serves would send such a client to ask for what it is
	// refused (invalid_scope), and an operator client knows its scopes from its registration.
	MCP       = Protected{Path: endpoint.MCP, Scopes: scope.NamesFor(scope.Member)}
	MemberAPI = Protected{Path: endpoint.MemberGraphQL, Scopes: scope.NamesFor(scope.Member)}
)

// WriteError answers a failed verification at the origin (Origin.WriteError).
func WriteError(w http.ResponseWriter, r *http.Request, err error) { Origin.WriteError(w, r, err) }

// Challenge writes a Bearer challenge at the origin (Origin.Challenge).
func Challenge(w http.ResponseWriter, r *http.Request, status int, code, description, scope string) {
	Origin.Challenge(w, r, status, code, description, scope)
}

// WriteError answers a failed verification: 401 invalid_token with a challenge naming the
// resource's metadata and scopes for a missing or bad token, 503 temporarily_unavailable without
// a challenge when no verdict could be reached.
func (p Protected) WriteError(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, ErrNoVerdict) {
		edge.WriteError(w, http.StatusServiceUnavailable, "temporarily_unavailable",
			"The token could not be checked right now; retry shortly.")
		return
	}
	if errors.Is(err, ErrOtherOrganization) {
		p.Challenge(w, r, http.StatusUnauthorized, "invalid_token",
			"The access token was issued for a different organization; run the authorization code flow again to get one for this school.", "")
		return
	}
	p.Challenge(w, r, http.StatusUnauthorized, "invalid_token", "The access token is missing, invalid or expired.", "")
}

// Challenge writes a Bearer challenge (RFC 6750 section 3) pointing at the called origin's
// protected-resource metadata for this resource (RFC 9728 section 5.1), never at the origin a
// token was bound to. A 401 without a scope of its own names the resource's Scopes.
func (p Protected) Challenge(w http.ResponseWriter, r *http.Request, status int, code, description, scope string) {
	if scope == "" && status == http.StatusUnauthorized {
		scope = strings.Join(p.Scopes, " ")
	}
	params := []string{fmt.Sprintf("error=%q", code), fmt.Sprintf("error_description=%q", description)}
	if scope != "" {
		params = append(params, fmt.Sprintf("scope=%q", scope))
	}
	if t, err := school.FromContext(r.Context()); err == nil {
		params = append(params, fmt.Sprintf("resource_metadata=%q", t.URL(endpoint.ProtectedResourceMetadata+p.Path)))
	}
	w.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(params, ", "))
	edge.WriteError(w, status, code, description)
}
