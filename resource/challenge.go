package resource

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/tenant"
)

// MetadataPath is where the origin's protected-resource metadata lives (RFC 9728).
const MetadataPath = "/.well-known/oauth-protected-resource"

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

// WriteError answers a failed verification: 401 invalid_token with a challenge naming the
// called origin's metadata for a missing or bad token, 503 temporarily_unavailable without a
// challenge when no verdict could be reached.
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, ErrNoVerdict) {
		edge.WriteError(w, http.StatusServiceUnavailable, "temporarily_unavailable",
			"The token could not be checked right now; retry shortly.")
		return
	}
	if errors.Is(err, ErrOtherOrganization) {
		Challenge(w, r, http.StatusUnauthorized, "invalid_token",
			"The access token was issued for a different organization; run the authorization code flow again to get one for this school.", "")
		return
	}
	Challenge(w, r, http.StatusUnauthorized, "invalid_token", "The access token is missing, invalid or expired.", "")
}

// Challenge writes a Bearer challenge (RFC 6750 section 3) pointing at the called origin's
// protected-resource metadata (RFC 9728 section 5.1), never at the origin a token was bound to.
func Challenge(w http.ResponseWriter, r *http.Request, status int, code, description, scope string) {
	params := []string{fmt.Sprintf("error=%q", code), fmt.Sprintf("error_description=%q", description)}
	if scope != "" {
		params = append(params, fmt.Sprintf("scope=%q", scope))
	}
	if t, err := tenant.FromContext(r.Context()); err == nil {
		params = append(params, fmt.Sprintf("resource_metadata=%q", t.URL(MetadataPath)))
	}
	w.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(params, ", "))
	edge.WriteError(w, status, code, description)
}
