package authz

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/proctorhq/proctor/client"
	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/scope"
)

// maxRegistrationBytes bounds a registration request; real client metadata is a few hundred
// bytes.
const maxRegistrationBytes = 16 << 10

// registrationRequest is the client metadata of RFC 7591 section 2 that Proctor reads; other
// members are ignored, as the RFC asks.
type registrationRequest struct {
	ClientName              *string   `json:"client_name"`
	RedirectURIs            *[]string `json:"redirect_uris"`
	TokenEndpointAuthMethod *string   `json:"token_endpoint_auth_method"`
	ApplicationType         *string   `json:"application_type"`
	GrantTypes              *[]string `json:"grant_types"`
	ResponseTypes           *[]string `json:"response_types"`
	Scope                   *string   `json:"scope"`
}

// registrationResponse is RFC 7591 section 3.2.1's answer.
type registrationResponse struct {
	ClientID                string   `json:"client_id"`
	ClientIDIssuedAt        int64    `json:"client_id_issued_at"`
	ClientName              string   `json:"client_name"`
	RedirectURIs            []string `json:"redirect_uris"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	ApplicationType         string   `json:"application_type"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	Scope                   string   `json:"scope"`
}

// registrationError is RFC 7591 section 3.2.2's error.
type registrationError struct {
	code, description string
}

func (e *registrationError) Error() string { return e.code + ": " + e.description }

func metadataError(description string) error {
	return &registrationError{"invalid_client_metadata", description}
}

func redirectURIError(description string) error {
	return &registrationError{"invalid_redirect_uri", description}
}

// register answers POST /api/oauth/register. It is not open registration (spec, Registration
// rules 1-3): the client_name must name a vendor integration the school accepts, and the answer
// is that platform's client_id. Nothing is stored per registration, so repeating it returns the
// same client_id and cannot fill the database; the redirect URIs a registration may name are
// the integration's own loopback URIs on any port (fixed https callbacks are configured with
// the integration instead).
func (h *Handler) register(w http.ResponseWriter, r *http.Request) {
	t, ok := requestSchool(w, r)
	if !ok {
		return
	}
	resp, err := h.registration(t, r)
	w.Header().Set("Cache-Control", "no-store")
	var re *registrationError
	switch {
	case edge.TooLarge(err):
		edge.WriteTooLarge(w)
	case errors.As(err, &re):
		edge.WriteJSON(w, http.StatusBadRequest, edge.ErrorBody{Error: re.code, Description: re.description})
	case err != nil:
		h.logError(r.Context(), "registration failed", err)
		edge.WriteJSON(w, http.StatusInternalServerError, edge.ErrorBody{Error: "server_error"})
	default:
		edge.WriteJSON(w, http.StatusCreated, resp)
	}
}

func (h *Handler) registration(t *school.School, r *http.Request) (registrationResponse, error) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return registrationResponse{}, metadataError("The request must be JSON (Content-Type: application/json).")
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRegistrationBytes+1))
	if edge.TooLarge(err) {
		return registrationResponse{}, err
	}
	if err != nil || len(body) > maxRegistrationBytes {
		return registrationResponse{}, metadataError("The request body is too large or could not be read.")
	}
	req, err := parseRegistration(body)
	if err != nil {
		return registrationResponse{}, err
	}
	in, ok := enabledIntegration(t, h.clients.integrations, func(in config.Integration) bool {
		return in.Named(*req.ClientName)
	})
	if !ok {
		return registrationResponse{}, metadataError("client_name is not a known integration of this school; other clients use a Client ID Metadata Document or an application created by the school.")
	}
	for _, u := range *req.RedirectURIs {
		if !loopbackMatches(u, in.RedirectURIs) {
			return registrationResponse{}, redirectURIError("The redirect URI " + u + " is not one of this integration's loopback callbacks.")
		}
	}
	allowed := integrationClient(in).Scopes
	granted := allowed
	if req.Scope != nil {
		asked, _ := scope.Parse(*req.Scope)
		for _, s := range asked {
			if !slices.Contains(allowed, s) {
				return registrationResponse{}, &registrationError{"invalid_scope", "The scope " + s + " is not available to this integration (account scopes belong to applications created by the school)."}
			}
		}
		granted = asked
	}
	appType := integrationClient(in).ApplicationType
	if req.ApplicationType != nil && *req.ApplicationType != "" {
		appType = *req.ApplicationType
	}
	return registrationResponse{
		ClientID:                in.ClientID,
		ClientIDIssuedAt:        h.now().Unix(),
		ClientName:              in.Name,
		RedirectURIs:            *req.RedirectURIs,
		TokenEndpointAuthMethod: "none",
		ApplicationType:         appType,
		GrantTypes:              grantTypes,
		ResponseTypes:           responseTypes,
		Scope:                   strings.Join(granted, " "),
	}, nil
}

// parseRegistration checks the metadata's shape: every RFC 7591 problem is reported with the
// RFC's codes, and nothing that parses wrongly reaches the integration lookup.
func parseRegistration(body []byte) (registrationRequest, error) {
	var req registrationRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return req, metadataError("The request is not a JSON object of client metadata with the right types.")
	}
	switch {
	case req.ClientName == nil || strings.TrimSpace(*req.ClientName) == "":
		return req, metadataError("client_name is required.")
	case req.RedirectURIs == nil || len(*req.RedirectURIs) == 0:
		return req, redirectURIError("redirect_uris is required.")
	case len(*req.RedirectURIs) > client.MaxRedirectURIs:
		return req, redirectURIError(fmt.Sprintf("At most %d redirect URIs may be registered.", client.MaxRedirectURIs))
	}
	if m := req.TokenEndpointAuthMethod; m != nil && *m != "none" {
		return req, metadataError("Registered clients are public: token_endpoint_auth_method must be none (PKCE protects the code).")
	}
	if a := req.ApplicationType; a != nil && *a != "" && *a != "web" && *a != "native" {
		return req, metadataError("application_type must be web or native.")
	}
	if g := req.GrantTypes; g != nil {
		for _, v := range *g {
			if !slices.Contains(grantTypes, v) {
				return req, metadataError("Only the authorization_code and refresh_token grant types are supported.")
			}
		}
	}
	if rt := req.ResponseTypes; rt != nil {
		for _, v := range *rt {
			if v != "code" {
				return req, metadataError("Only the code response type is supported.")
			}
		}
	}
	if s := req.Scope; s != nil {
		if _, ok := scope.Parse(*s); !ok {
			return req, metadataError("scope is not a space-separated list of scopes.")
		}
	}
	for _, raw := range *req.RedirectURIs {
		if err := checkRegistrationRedirect(raw); err != nil {
			return req, err
		}
	}
	return req, nil
}

// checkRegistrationRedirect accepts only loopback callbacks (spec, Registration rules 1-2).
func checkRegistrationRedirect(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Fragment != "" || strings.Contains(raw, "#") || u.User != nil {
		return redirectURIError("Redirect URIs must be absolute URLs without fragments or user info.")
	}
	if u.Scheme == "https" {
		return redirectURIError("A fixed https callback cannot be registered here; it must be configured as a registered integration.")
	}
	if ip := net.ParseIP(u.Hostname()); u.Scheme != "http" || ip == nil || !ip.IsLoopback() {
		return redirectURIError("Only loopback redirect URIs (http://127.0.0.1:<port>/<path> or http://[::1]:<port>/<path>) can be registered.")
	}
	return nil
}

// loopbackMatches reports whether a loopback redirect URI is one of the registered loopback URIs
// on some port (RFC 8252 section 7.3).
func loopbackMatches(raw string, registered []string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	for _, r := range registered {
		ru, err := url.Parse(r)
		if err == nil && ru.Scheme == "http" && ru.Hostname() == u.Hostname() && ru.Path == u.Path && ru.RawQuery == u.RawQuery {
			return true
		}
	}
	return false
}
