package operator

import (
	"encoding/json"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/scope"
)

// securityScheme names the OAuth 2.0 scheme every operation's security requirement refers to.
const securityScheme = "oauth2"

const apiDescription = `The operator REST API of one school: its courses and curricula, students, members and roles,
figures, payments, settings and appearance, events, membership plans, coupons, posts,
subscriptions, digital products, comments, lecturers, file storage, forms and pages.

**Authentication.** Send an access token of an operator client, obtained with the authorization
code flow with PKCE (S256) at this school, as ` + "`Authorization: Bearer <token>`" + `. Each operation needs
one scope, shown in its security requirement, and the token's user must still be an owner or
admin of the school. A missing or invalid token is answered 401 and a missing scope or role 403,
both with a ` + "`WWW-Authenticate`" + ` Bearer challenge (a missing scope is named in its ` + "`scope`" + `
parameter); 503 ` + "`temporarily_unavailable`" + ` means the token could not be checked, and the client
may retry.

**Lists** return ` + "`items`" + ` and, when more follow, ` + "`next_cursor`" + `: pass it back as ` + "`cursor`" + `.
` + "`limit`" + ` is 1 to 100 items (default 20).

**Errors** of the operations themselves are RFC 9457 problem documents
(` + "`application/problem+json`" + `): 404 for an id unknown at this school, 409 for a taken slug, code
or key, 422 for invalid input (with the offending fields), 413 for a body over the limit.

**Money** is an integer in the currency's minor unit with an ISO 4217 code; times are RFC 3339
in UTC.`

// serveOpenAPI answers GET /openapi.json with the school's document: OpenAPI 3.0, the REST
// operations only (the Member API is not described here, spec), with absolute URLs of this
// school's authorization and token endpoints. Like the discovery documents it carries no
// credentials, so any origin may read it and caches may keep it briefly.
func (h *Handler) serveOpenAPI(w http.ResponseWriter, r *http.Request) {
	if !edge.PublicRead(w, r) {
		return
	}
	t, err := school.FromContext(r.Context())
	if err != nil {
		edge.WriteNoSchool(w)
		return
	}
	doc, err := h.document(t)
	if err != nil {
		h.log.ErrorContext(r.Context(), "operator api: openapi document", "error", err)
		edge.WriteError(w, http.StatusInternalServerError, "server_error", "The document could not be built.")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=300")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(doc)
	}
}

// document returns the school's OpenAPI 3.0 document. huma describes the API in OpenAPI 3.1;
// its Downgrade rewrites the 3.1 constructs (type arrays for nullable, examples, exclusive
// bounds ...) into their 3.0 forms. The per-school parts (servers, the OAuth endpoints) are set
// on a shallow copy, so the registered operations are shared and never written to.
func (h *Handler) document(t *school.School) ([]byte, error) {
	if doc, ok := h.docs.Load(t); ok {
		return doc.([]byte), nil
	}
	o := *h.api.OpenAPI()
	o.Servers = []*huma.Server{{URL: t.Origin, Description: t.Name}}
	info := *o.Info
	info.Title = t.Name + " operator API"
	o.Info = &info
	components := *o.Components
	components.SecuritySchemes = map[string]*huma.SecurityScheme{securityScheme: oauthScheme(t)}
	o.Components = &components
	doc, err := o.Downgrade()
	if err != nil {
		return nil, err
	}
	if doc, err = dropKeywords31(doc); err != nil {
		return nil, err
	}
	h.docs.Store(t, doc)
	return doc, nil
}

// dropKeywords31 removes the JSON Schema keywords huma writes that OpenAPI 3.0 schemas do not
// have and Downgrade leaves in place: contentMediaType, which huma adds beside format binary
// (the upload's body), where 3.0 says the same with format binary alone.
func dropKeywords31(doc []byte) ([]byte, error) {
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return nil, err
	}
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if v["format"] == "binary" {
				delete(v, "contentMediaType")
			}
			for _, c := range v {
				walk(c)
			}
		case []any:
			for _, c := range v {
				walk(c)
			}
		}
	}
	walk(v)
	return json.Marshal(v)
}

// oauthScheme is the school's authorization-code flow, listing the scopes an operator client
// may hold: the identity scopes and the operator scopes of the catalogue (account:* belong to
// member clients and are refused to operator clients, spec Authentication 11).
func oauthScheme(t *school.School) *huma.SecurityScheme {
	scopes := map[string]string{}
	for _, s := range scope.All() {
		if s.Audience != scope.Member {
			scopes[s.Name] = s.Description
		}
	}
	return &huma.SecurityScheme{
		Type:        "oauth2",
		Description: "Authorization code flow with PKCE (S256) at this school; see /.well-known/oauth-authorization-server.",
		Flows: &huma.OAuthFlows{AuthorizationCode: &huma.OAuthFlow{
			AuthorizationURL: t.URL(endpoint.Authorize),
			TokenURL:         t.URL(endpoint.Token),
			RefreshURL:       t.URL(endpoint.Token),
			Scopes:           scopes,
		}},
	}
}
