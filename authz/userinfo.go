package authz

import (
	"errors"
	"net/http"

	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/resource"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
)

// userinfo answers OpenID Connect UserInfo with the claims the token's scopes release (see
// memberClaims). Its first call with a refreshed access token completes the rotation, as at any
// protected resource.
func (h *Handler) userinfo(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	t, ok := requestSchool(w, r)
	if !ok {
		return
	}
	token, err := resource.BearerToken(r)
	if err == nil {
		var g resource.Grant
		g, err = h.verifier.Verify(ctx, token)
		if err == nil {
			if g.MemberID == 0 {
				err = resource.ErrInvalidToken
			} else {
				h.writeUserinfo(w, r, t, g)
				return
			}
		}
	}
	if errors.Is(err, resource.ErrNoVerdict) {
		h.logError(ctx, "userinfo: token check failed", err)
	}
	resource.WriteError(w, r, err)
}

func (h *Handler) writeUserinfo(w http.ResponseWriter, r *http.Request, t *school.School, g resource.Grant) {
	ctx := r.Context()
	m, err := h.store.GetMember(ctx, g.MemberID)
	var roles []storage.Role
	if err == nil {
		roles, err = h.store.GetRoles(ctx, g.MemberID)
	}
	if errors.Is(err, storage.ErrNotFound) {
		resource.WriteError(w, r, resource.ErrInvalidToken)
		return
	}
	if err != nil {
		h.logError(ctx, "userinfo: member lookup failed", err)
		resource.WriteError(w, r, resource.ErrNoVerdict)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	claims := memberClaims(t, m, roles, g.Scopes)
	if len(g.AMR) > 0 {
		// How the member signed in when they granted this (the ID token's amr).
		claims["amr"] = g.AMR
	}
	edge.WriteJSON(w, http.StatusOK, claims)
}
