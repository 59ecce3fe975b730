package authz

import (
	"errors"
	"net/http"

	"github.com/ory/fosite"

	"github.com/proctorhq/proctor/storage"
)

// The error codes each endpoint may answer with: RFC 6749 sections 4.1.2.1 and 5.2, RFC 7009,
// RFC 8707's invalid_target and OpenID Connect's authorization errors.
var (
	tokenCodes = codeSet("invalid_request", "invalid_client", "invalid_grant", "unauthorized_client",
		"unsupported_grant_type", "invalid_scope", "invalid_target", "server_error", "temporarily_unavailable")
	authorizeCodes = codeSet("invalid_request", "unauthorized_client", "access_denied",
		"unsupported_response_type", "invalid_scope", "invalid_target", "server_error", "temporarily_unavailable",
		"consent_required", "login_required", "interaction_required", "request_not_supported",
		"request_uri_not_supported", "registration_not_supported")
	revokeCodes = codeSet("invalid_request", "invalid_client", "unauthorized_client",
		"unsupported_token_type", "server_error", "temporarily_unavailable")
)

func codeSet(codes ...string) map[string]bool {
	m := make(map[string]bool, len(codes))
	for _, c := range codes {
		m[c] = true
	}
	return m
}

// fositeToRFC maps fosite's own codes to the standard ones they stand for.
var fositeToRFC = map[string]string{
	"scope_not_granted":        "invalid_scope",
	"insufficient_entropy":     "invalid_request",
	"invalid_state":            "invalid_request",
	"request_unauthorized":     "invalid_client",
	"request_forbidden":        "access_denied",
	"invalid_request_uri":      "invalid_request",
	"invalid_request_object":   "invalid_request",
	"token_signature_mismatch": "invalid_grant",
	"invalid_token":            "invalid_grant",
	"token_expired":            "invalid_grant",
	"token_inactive":           "invalid_grant",
	"unsupported_token_type":   "unsupported_token_type",
}

var errUnavailable = &fosite.RFC6749Error{
	ErrorField:       "temporarily_unavailable",
	DescriptionField: "The service is temporarily unavailable; retry shortly.",
	CodeField:        http.StatusServiceUnavailable,
}

// normalize turns any error into an RFC 6749 error with a code from allowed, without debug
// detail. Storage outages become temporarily_unavailable; a reused or revoked code or token
// becomes invalid_grant; anything unrecognised becomes server_error.
func normalize(err error, allowed map[string]bool) *fosite.RFC6749Error {
	if errors.Is(err, storage.ErrUnavailable) {
		return errUnavailable
	}
	if errors.Is(err, fosite.ErrInvalidatedAuthorizeCode) || errors.Is(err, fosite.ErrInactiveToken) {
		return fosite.ErrInvalidGrant.WithHint("The authorization code or refresh token is no longer valid.")
	}
	e := fosite.ErrorToRFC6749Error(err).WithExposeDebug(false)
	code := e.ErrorField
	if mapped, ok := fositeToRFC[code]; ok {
		code = mapped
	}
	if !allowed[code] {
		if allowed["invalid_request"] && e.CodeField < 500 {
			code = "invalid_request"
		} else {
			code = "server_error"
		}
	}
	if code == e.ErrorField {
		return e
	}
	out := *e
	out.ErrorField = code
	switch code {
	case "server_error":
		out.CodeField = http.StatusInternalServerError
		out.DescriptionField = "The server could not handle the request."
		out.HintField = ""
	case "invalid_client":
		out.CodeField = http.StatusUnauthorized
	case "access_denied":
		out.CodeField = http.StatusForbidden
	default:
		out.CodeField = http.StatusBadRequest
	}
	return &out
}
