package authz_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/server/servertest"
	"github.com/proctorhq/proctor/storage"
)

// postJSON posts body to the registration endpoint of school A.
func (e *env) postRegistration(contentType, body string) (int, map[string]any) {
	e.t.Helper()
	resp, err := http.Post(e.url(e.a, endpoint.Register), contentType, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		e.t.Fatalf("registration answered non-JSON (%d): %s", resp.StatusCode, raw)
	}
	return resp.StatusCode, m
}

func TestRegistration(t *testing.T) {
	e := newEnv(t, "sqlite")
	countClients := func() int {
		list, _, err := e.store.ListClients(e.ctx(e.a), "", storage.Page{First: 100})
		if err != nil {
			t.Fatal(err)
		}
		return len(list)
	}
	before := countClients()
	const good = `{"client_name":"Course Copilot","redirect_uris":["http://127.0.0.1:33418/callback"],"token_endpoint_auth_method":"none","application_type":"native","grant_types":["authorization_code","refresh_token"],"response_types":["code"],"extra":"ignored"}`
	for i := 0; i < 3; i++ { // repeated registrations return the same id and store nothing
		status, body := e.postRegistration("application/json", good)
		if status != http.StatusCreated || body["client_id"] != "course-copilot" || body["token_endpoint_auth_method"] != "none" ||
			body["client_id_issued_at"] == nil || body["scope"] != "openid courses:read students:read" {
			t.Fatalf("registration %d: %d %v", i, status, body)
		}
	}
	if countClients() != before {
		t.Error("registrations stored clients")
	}

	for name, tc := range map[string]struct{ contentType, body, code string }{
		"unknown client_name":     {"application/json", `{"client_name":"Some Agent","redirect_uris":["http://127.0.0.1:1/callback"]}`, "invalid_client_metadata"},
		"fixed https callback":    {"application/json", `{"client_name":"Course Copilot","redirect_uris":["https://copilot.example/oauth/callback"]}`, "invalid_redirect_uri"},
		"https for unknown name":  {"application/json", `{"client_name":"Nobody","redirect_uris":["https://nobody.example/cb"]}`, "invalid_redirect_uri"},
		"loopback of other path":  {"application/json", `{"client_name":"Course Copilot","redirect_uris":["http://127.0.0.1:5/other"]}`, "invalid_redirect_uri"},
		"localhost is not an IP":  {"application/json", `{"client_name":"Course Copilot","redirect_uris":["http://localhost:5/callback"]}`, "invalid_redirect_uri"},
		"no redirect uris":        {"application/json", `{"client_name":"Course Copilot"}`, "invalid_redirect_uri"},
		"no client_name":          {"application/json", `{"redirect_uris":["http://127.0.0.1:1/callback"]}`, "invalid_client_metadata"},
		"not JSON":                {"application/json", `client_name=x`, "invalid_client_metadata"},
		"form content type":       {"application/x-www-form-urlencoded", good, "invalid_client_metadata"},
		"wrong types":             {"application/json", `{"client_name":7,"redirect_uris":"http://127.0.0.1/callback"}`, "invalid_client_metadata"},
		"secret auth method":      {"application/json", `{"client_name":"Course Copilot","redirect_uris":["http://127.0.0.1:1/callback"],"token_endpoint_auth_method":"client_secret_post"}`, "invalid_client_metadata"},
		"unknown auth method":     {"application/json", `{"client_name":"Course Copilot","redirect_uris":["http://127.0.0.1:1/callback"],"token_endpoint_auth_method":"tls_client_auth"}`, "invalid_client_metadata"},
		"implicit grant":          {"application/json", `{"client_name":"Course Copilot","redirect_uris":["http://127.0.0.1:1/callback"],"grant_types":["implicit"]}`, "invalid_client_metadata"},
		"account:read asked":      {"application/json", `{"client_name":"Course Copilot","redirect_uris":["http://127.0.0.1:1/callback"],"scope":"openid account:read"}`, "invalid_scope"},
		"scope beyond the vendor": {"application/json", `{"client_name":"Gradebook Sync","redirect_uris":["http://127.0.0.1:1/cb"],"scope":"courses:write"}`, "invalid_scope"},
		"oversized":               {"application/json", `{"client_name":"` + strings.Repeat("x", 20000) + `","redirect_uris":["http://127.0.0.1:1/callback"]}`, "invalid_client_metadata"},
	} {
		status, body := e.postRegistration(tc.contentType, tc.body)
		if status != 400 || body["error"] != tc.code || body["error_description"] == "" {
			t.Errorf("%s: %d %v, want 400 %s", name, status, body, tc.code)
		}
	}
	if countClients() != before {
		t.Error("failed registrations stored clients")
	}
}

// TestRegisteredIntegrationAuthorizes: the client_id a registration returns works as an
// operator client, and never with account:read (spec, Authentication 11).
func TestRegisteredIntegrationAuthorizes(t *testing.T) {
	e := newEnv(t, "sqlite")
	status, body := e.postRegistration("application/json", `{"client_name":"course copilot","redirect_uris":["http://127.0.0.1:40000/callback"]}`)
	if status != http.StatusCreated {
		t.Fatalf("register: %d %v", status, body)
	}
	id := body["client_id"].(string)
	p := servertest.NewPKCE()
	q := servertest.AuthorizeParams(e.a, oauthClient(id), p, "openid", "courses:read")
	q.Set("redirect_uri", "http://127.0.0.1:40000/callback")
	b := e.signedIn(e.a, operatorEmail)
	loc := b.consent(e.url(e.a, endpoint.Authorize)+"?"+q.Encode(), "approve")
	if loc.Query().Get("code") == "" {
		t.Fatalf("no code: %s", loc)
	}
	q.Set("scope", "account:read")
	resp := b.authorize(e.a, q)
	if resp.Status != http.StatusSeeOther || !strings.Contains(resp.Header.Get("Location"), "error=invalid_scope") {
		t.Errorf("integration asking account:read: %d %s", resp.Status, resp.Header.Get("Location"))
	}
}

func FuzzRegistration(f *testing.F) {
	for _, s := range []string{
		`{"client_name":"Course Copilot","redirect_uris":["http://127.0.0.1:1/callback"]}`,
		`{"client_name":"Course Copilot","redirect_uris":["https://copilot.example/oauth/callback"],"scope":"openid"}`,
		`{"client_name":null}`, `[]`, `{"redirect_uris":[1,2]}`, `{"client_name":"x","redirect_uris":["http://[::1]:9/callback"],"grant_types":null}`,
	} {
		f.Add(s)
	}
	e := newEnv(f, "sqlite")
	f.Fuzz(func(t *testing.T, body string) {
		resp, err := http.Post(e.url(e.a, endpoint.Register), "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusBadRequest && resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("%q: status %d", body, resp.StatusCode)
		}
	})
}
