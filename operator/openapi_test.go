package operator

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/gorilla/mux"

	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/scope"
	"github.com/proctorhq/proctor/server/servertest/schools"
)

// fetchDocument serves /openapi.json for the school through the mounted handler.
func fetchDocument(t *testing.T, tn *school.School) (*http.Response, []byte) {
	t.Helper()
	r := mux.NewRouter()
	New(Deps{}).Mount(r)
	req := httptest.NewRequest(http.MethodGet, endpoint.OpenAPI, nil)
	req = req.WithContext(school.NewContext(req.Context(), tn))
	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, req)
	return rec.Result(), rec.Body.Bytes()
}

// TestOpenAPIDocument loads the served document with kin-openapi, validates it as OpenAPI 3.0
// and checks that every operator scope of the catalogue gates some operation, and that each
// operation names exactly one scope of the scheme.
func TestOpenAPIDocument(t *testing.T) {
	tn := schools.School(t, schools.File(1, "north", "Northwind", "https://north.example"))
	resp, body := fetchDocument(t, tn)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	doc, err := openapi3.NewLoader().LoadFromData(body)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.0.") {
		t.Errorf("openapi %q, want 3.0.x", doc.OpenAPI)
	}
	if err := doc.Validate(t.Context()); err != nil {
		t.Fatalf("validate: %v", err)
	}

	scheme := doc.Components.SecuritySchemes[securityScheme]
	if scheme == nil || scheme.Value.Type != "oauth2" || scheme.Value.Flows.AuthorizationCode == nil {
		t.Fatalf("no oauth2 authorization-code scheme: %+v", scheme)
	}
	flow := scheme.Value.Flows.AuthorizationCode
	if flow.AuthorizationURL != "https://north.example/oauth/authorize" || flow.TokenURL != "https://north.example/api/oauth/token" {
		t.Errorf("flow URLs %q %q", flow.AuthorizationURL, flow.TokenURL)
	}
	for _, s := range scope.NamesFor(scope.Identity, scope.Operator) {
		if _, ok := flow.Scopes[s]; !ok {
			t.Errorf("scheme lacks scope %s", s)
		}
	}
	for _, s := range scope.NamesFor(scope.Member) {
		if _, ok := flow.Scopes[s]; ok {
			t.Errorf("scheme lists member scope %s", s)
		}
	}
	if len(doc.Servers) != 1 || doc.Servers[0].URL != tn.Origin {
		t.Errorf("servers %+v", doc.Servers)
	}

	gated := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		if !strings.HasPrefix(path, Prefix+"/") {
			t.Errorf("path %s outside %s", path, Prefix)
		}
		for method, op := range item.Operations() {
			if op.Security == nil || len(*op.Security) != 1 || len((*op.Security)[0][securityScheme]) != 1 {
				t.Errorf("%s %s: security %v, want one scope of %s", method, path, op.Security, securityScheme)
				continue
			}
			s := (*op.Security)[0][securityScheme][0]
			if _, ok := flow.Scopes[s]; !ok {
				t.Errorf("%s %s needs %s, which the scheme does not list", method, path, s)
			}
			gated[s] = true
		}
	}
	for _, s := range scope.NamesFor(scope.Operator) {
		if !gated[s] {
			t.Errorf("scope %s gates no operation", s)
		}
	}
	if strings.Contains(string(body), "graphql") {
		t.Error("the document mentions the Member API")
	}
}

// TestOpenAPIPerSchool checks that each school's document names its own endpoints.
func TestOpenAPIPerSchool(t *testing.T) {
	a := schools.School(t, schools.File(1, "a", "A", "https://a.example"))
	b := schools.School(t, schools.File(2, "b", "B", "http://localhost:8080"))
	r := mux.NewRouter()
	h := New(Deps{})
	h.Mount(r)
	for _, tn := range []*school.School{a, b, a} {
		raw, err := h.document(tn)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Servers []struct{ URL string } `json:"servers"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		if len(doc.Servers) != 1 || doc.Servers[0].URL != tn.Origin {
			t.Errorf("%s: servers %+v", tn.Origin, doc.Servers)
		}
		if !strings.Contains(string(raw), tn.Origin+"/oauth/authorize") {
			t.Errorf("%s: the document does not name the school's authorize endpoint", tn.Origin)
		}
		other := a
		if tn == a {
			other = b
		}
		if strings.Contains(string(raw), other.Origin) {
			t.Errorf("%s: the document names %s", tn.Origin, other.Origin)
		}
	}
}
