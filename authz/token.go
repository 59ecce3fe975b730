package authz

import (
	"net/http"

	"github.com/ory/fosite"

	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/storage"
)

// token handles the code exchange and the refresh grant. The response adds school_id,
// school_subdomain and created_at to fosite's fields (spec, Token response); id_token appears
// only at the code exchange of a school with ID tokens on and scope openid.
func (h *Handler) token(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	w.Header().Set("Cache-Control", "no-store")
	if !clientForm(w, r, func(err error) { h.tokenError(w, r, err) }) {
		return
	}
	gt := r.PostForm.Get("grant_type")
	h.spanGrant(ctx, gt)
	switch gt {
	case "authorization_code", "refresh_token":
	case "":
		h.tokenError(w, r, fosite.ErrInvalidRequest.WithHint("grant_type is required."))
		return
	default:
		// fosite answers an unknown grant type with invalid_request; RFC 6749 section 5.2 has a
		// code for it.
		h.tokenError(w, r, fosite.ErrUnsupportedGrantType.WithHint("Only authorization_code and refresh_token are supported."))
		return
	}
	ar, err := h.p.NewAccessRequest(ctx, r, newSession())
	if err != nil {
		h.tokenError(w, r, err)
		return
	}
	resp, err := h.p.NewAccessResponse(ctx, ar)
	if err != nil {
		h.tokenError(w, r, err)
		return
	}
	// fosite derives expires_in from the stored expiry, which it rounds to the second, minus the
	// time now, truncated: about half of all answers said 7199 for two hours. The lifetime is
	// the school's configured one (spec: two hours by default), so that is what is answered.
	resp.SetExpiresIn(h.p.config.GetAccessTokenLifespan(ctx))
	sess, err := sessionOf(ar)
	if err != nil {
		h.tokenError(w, r, err)
		return
	}
	resp.SetExtra("school_id", sess.SchoolID)
	resp.SetExtra("school_subdomain", sess.Subdomain)
	resp.SetExtra("created_at", h.now().Unix())
	h.p.WriteAccessResponse(ctx, w, ar, resp)
	h.counters.tokenIssued(sess.SchoolID, gt)
}

func (h *Handler) tokenError(w http.ResponseWriter, r *http.Request, err error) {
	h.endpointError(w, r, err, tokenCodes, "token request failed")
}

// endpointError answers a failed token or revocation request with err as one of the codes the
// endpoint may answer (allowed, see normalize), marks it on the request's span and logs it, as
// what failed, when the failure is the server's (5xx).
func (h *Handler) endpointError(w http.ResponseWriter, r *http.Request, err error, allowed map[string]bool, what string) {
	e := normalize(err, allowed)
	h.spanError(r.Context(), e)
	if e.CodeField >= 500 {
		h.logError(r.Context(), what, err)
	}
	writeOAuthError(w, e)
}

// writeOAuthError writes an RFC 6749 section 5.2 body.
func writeOAuthError(w http.ResponseWriter, e *fosite.RFC6749Error) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
	if e.ErrorField == "invalid_client" {
		// RFC 6749 section 5.2: 401 with a challenge for the scheme the client may use.
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_client"`)
	}
	edge.WriteJSON(w, e.CodeField, edge.ErrorBody{Error: e.ErrorField, Description: e.GetDescription()})
}

// revoke handles RFC 7009 revocation. A confidential client that sends no secret is refused
// with 403 unauthorized_client (spec, Errors); everything the server cannot act on is 200.
func (h *Handler) revoke(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if !clientForm(w, r, func(err error) { writeOAuthError(w, normalize(err, revokeCodes)) }) {
		return
	}
	if id := r.PostForm.Get("client_id"); id != "" && r.PostForm.Get("client_secret") == "" {
		c, err := h.store.GetClient(ctx, id)
		if err == nil && c.TokenEndpointAuthMethod == storage.AuthMethodSecretPost {
			writeOAuthError(w, &fosite.RFC6749Error{
				ErrorField: "unauthorized_client", CodeField: http.StatusForbidden,
				DescriptionField: "This client must authenticate with its client_secret.",
			})
			return
		}
	}
	if err := h.p.NewRevocationRequest(ctx, r); err != nil {
		h.endpointError(w, r, err, revokeCodes, "revocation failed")
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
}

// clientForm reads the form of a token or revocation request and makes the checks both
// endpoints make before fosite sees it: the body can be read, the client authenticates only as
// the spec allows (onlyPostOrNone) and no parameter comes twice. It reports whether the request
// passed; if not, the answer is written: 413 for a body over the limit, otherwise fail's.
func clientForm(w http.ResponseWriter, r *http.Request, fail func(error)) bool {
	if err := r.ParseForm(); err != nil {
		edge.WriteBodyError(w, err, func() { fail(fosite.ErrInvalidRequest.WithHint("The request body could not be read.")) })
		return false
	}
	err := onlyPostOrNone(r)
	if name := repeatedParam(r.PostForm); err == nil && name != "" {
		err = errRepeated(name)
	}
	if err != nil {
		fail(err)
		return false
	}
	return true
}

// onlyPostOrNone refuses every client authentication but the two the spec allows (Authentication
// 2): "none" and client_secret_post. fosite would accept HTTP Basic with an empty password as a
// public client's identification, and would try client assertions.
func onlyPostOrNone(r *http.Request) error {
	if r.Header.Get("Authorization") != "" || r.PostForm.Has("client_assertion") || r.PostForm.Has("client_assertion_type") {
		return fosite.ErrInvalidClient.WithHint("Clients authenticate with client_secret_post or not at all (public clients).")
	}
	return nil
}
