package resource

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/school"
)

// IntrospectPath is the RFC 7662 introspection endpoint on the internal listener. It is never
// on the public listener nor advertised in discovery (spec, Authentication 6): only a Member API
// process of the same deployment calls it, with the internal API key.
const IntrospectPath = "/internal/introspect"

// InternalRealm is the Bearer realm of the internal listener's endpoints that need its API key.
const InternalRealm = "proctor-internal"

// Introspection is the RFC 7662 section 2.2 answer, plus the school and the bound resource.
type Introspection struct {
	Active    bool   `json:"active"`
	Sub       string `json:"sub,omitempty"`
	ClientID  string `json:"client_id,omitempty"`
	Scope     string `json:"scope,omitempty"`
	Exp       int64  `json:"exp,omitempty"`
	Iat       int64  `json:"iat,omitempty"`
	Aud       string `json:"aud,omitempty"`
	TokenType string `json:"token_type,omitempty"`
	SchoolID  int64  `json:"school_id,omitempty"`
	Resource  string `json:"resource,omitempty"`
}

// IntrospectionHandler answers POST /internal/introspect with form fields `token` and
// `school_id` (the school whose API is being called). It runs the same Verifier as every public
// resource, so introspecting a refreshed token's first use commits the rotation too.
func IntrospectionHandler(v Verifier, schools *school.Registry, apiKey []byte) http.Handler {
	return edge.RequireAPIKey(apiKey, InternalRealm, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		if err := r.ParseForm(); err != nil {
			edge.WriteBodyError(w, err, func() {
				edge.WriteError(w, http.StatusBadRequest, "invalid_request", "The form could not be read.")
			})
			return
		}
		id, err := strconv.ParseInt(r.PostForm.Get("school_id"), 10, 64)
		t, ok := schools.BySchoolID(id)
		if err != nil || !ok {
			edge.WriteJSON(w, http.StatusOK, Introspection{Active: false})
			return
		}
		g, err := v.Verify(school.NewContext(r.Context(), t), r.PostForm.Get("token"))
		switch {
		case errors.Is(err, ErrNoVerdict):
			edge.WriteError(w, http.StatusServiceUnavailable, "temporarily_unavailable", "The token could not be checked right now.")
			return
		case err != nil:
			edge.WriteJSON(w, http.StatusOK, Introspection{Active: false})
			return
		}
		out := Introspection{
			Active: true, ClientID: g.ClientID, Scope: strings.Join(g.Scopes, " "),
			Exp: g.ExpiresAt.Unix(), Iat: g.IssuedAt.Unix(), Aud: t.Origin, TokenType: "Bearer",
			SchoolID: t.SchoolID, Resource: g.Resource,
		}
		if g.MemberID != 0 {
			out.Sub = strconv.FormatInt(g.MemberID, 10)
		}
		edge.WriteJSON(w, http.StatusOK, out)
	}))
}
