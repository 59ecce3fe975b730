package authz_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/endpoint"
)

// FuzzTokenEndpoint posts arbitrary form bodies to the token endpoint of a real server.
func FuzzTokenEndpoint(f *testing.F) {
	for _, s := range []string{
		"grant_type=authorization_code&code=x.y&client_id=member-app&code_verifier=v&redirect_uri=http%3A%2F%2F127.0.0.1%2Fcallback&resource=x",
		"grant_type=refresh_token&refresh_token=a.b&client_id=member-app",
		"grant_type=password&username=a&password=b",
		"grant_type=authorization_code&client_id=&code=%",
		"client_id=member-app&client_id=other",
		"",
	} {
		f.Add(s)
	}
	fuzzFormEndpoint(f, newEnv(f, "sqlite"), endpoint.Token)
}

// fuzzFormEndpoint posts each fuzzed body as a form to path at school A: whatever the body, the
// answer is never a server error, and a refusal carries an OAuth error code (RFC 6749 section
// 5.2, RFC 7009 section 2.2.1).
func fuzzFormEndpoint(f *testing.F, e *env, path string) {
	handler := e.srv.Config.Handler
	host := strings.TrimPrefix(e.a.Origin, "http://")
	f.Fuzz(func(t *testing.T, body string) {
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
		req.Host = host
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("body %q: status %d %s", body, rec.Code, rec.Body.String())
		}
		if rec.Code != http.StatusOK && !strings.Contains(rec.Body.String(), `"error"`) {
			t.Fatalf("body %q: %d without an error code: %s", body, rec.Code, rec.Body.String())
		}
	})
}
