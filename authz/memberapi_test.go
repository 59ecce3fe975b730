package authz_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/server"
)

// TestSeparateMemberAPIProcess runs the Member API as its own server (`serve --only
// member-api`) beside the authorization server: it shares the database, verifies tokens through
// the internal introspection endpoint, honours revocation, and answers 503 (no verdict) when
// the introspection endpoint is down.
func TestSeparateMemberAPIProcess(t *testing.T) {
	e := newEnv(t, "sqlite")
	tr := e.tokens("account:read")

	// The Member API process answers at the same school origin as the authorization server
	// (behind one load balancer in production), so requests are addressed with that Host.
	reg, err := school.NewRegistry([]*school.School{e.a, e.b})
	if err != nil {
		t.Fatal(err)
	}
	sc := config.DefaultServer()
	sc.Secret = e.secret
	sc.MemberAPI = config.MemberAPI{IntrospectionURL: e.internal.URL + "/internal/introspect", APIKey: config.Secret(testInternalKey)}
	memberAPI, err := server.New(server.Deps{Config: sc, Schools: reg, Store: e.store, Only: server.OnlyMemberAPI})
	if err != nil {
		t.Fatal(err)
	}
	api := httptest.NewServer(memberAPI.PublicHandler())
	defer api.Close()

	query := func(token string) (int, string, http.Header) {
		body, _ := json.Marshal(map[string]string{"query": "{ viewer { id email } }"})
		req, _ := http.NewRequest(http.MethodPost, api.URL+"/member/graphql", bytes.NewReader(body))
		req.Host = strings.TrimPrefix(e.a.Origin, "http://")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		return resp.StatusCode, b.String(), resp.Header
	}
	status, body, _ := query(tr.AccessToken)
	if status != 200 || !strings.Contains(body, studentEmail) {
		t.Fatalf("viewer through the separate process: %d %s", status, body)
	}
	// The process serves the Member API only.
	for _, path := range []string{"/.well-known/openid-configuration", "/api/oauth/token", "/login"} {
		req, _ := http.NewRequest(http.MethodGet, api.URL+path, nil)
		req.Host = strings.TrimPrefix(e.a.Origin, "http://")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s on the Member API process: %d", path, resp.StatusCode)
		}
	}
	// A revocation at the authorization server is honoured at once (introspection is live).
	if res := e.Revoke(e.a, oauthClient(publicClient), tr.RefreshToken); res.Status != 200 {
		t.Fatalf("revoke: %d", res.Status)
	}
	if status, _, h := query(tr.AccessToken); status != 401 || !strings.Contains(h.Get("WWW-Authenticate"), "invalid_token") {
		t.Errorf("revoked token at the separate process: %d %q", status, h.Get("WWW-Authenticate"))
	}
	// With the introspection endpoint down there is no verdict: 503, no challenge.
	other := e.tokens("account:read")
	e.internal.Close()
	if status, _, h := query(other.AccessToken); status != 503 || h.Get("WWW-Authenticate") != "" {
		t.Errorf("introspection down: %d %q, want 503 without a challenge", status, h.Get("WWW-Authenticate"))
	}
}
