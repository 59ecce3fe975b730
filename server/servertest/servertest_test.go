package servertest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/server/servertest"
	"github.com/proctorhq/proctor/server/servertest/schools"
)

// TestEnv: every school of the environment signs its members in and issues working member and
// operator tokens, the internal listener introspects them, and the log is captured.
func TestEnv(t *testing.T) {
	schools.EachBackend(t, func(t *testing.T, backend string) *servertest.Env {
		return servertest.New(t, servertest.Options{Backend: backend, HTTPS: true})
	}, func(t *testing.T, e *servertest.Env) {
		if e.C == nil || !strings.HasPrefix(e.C.Origin, "https://") {
			t.Fatalf("school C: %+v", e.C)
		}
		for _, s := range e.Schools() {
			member := e.Tokens(s, s.Student.Email, "openid", "account:read")
			if got := e.Userinfo(s, member.AccessToken); got != http.StatusOK {
				t.Errorf("%s: userinfo with a member token: %d", s.Subdomain, got)
			}
			op := e.Tokens(s, s.Owner.Email, "openid", "courses:read")
			if r := e.Bearer(http.MethodGet, s.URL("/api/v1/courses"), op.AccessToken, "", ""); r.Status != http.StatusOK {
				t.Errorf("%s: operator API with an operator token: %d %s", s.Subdomain, r.Status, r.Body)
			}
			if _, in := e.Introspect(s, member.AccessToken); !in.Active {
				t.Errorf("%s: introspection: %+v", s.Subdomain, in)
			}
		}
		if e.Tokens(e.A, e.Shared.Email, "openid").IDToken == "" {
			t.Error("school A issued no ID token")
		}
		if !strings.Contains(e.Log.String(), `"msg":"signed in"`) {
			t.Errorf("the log was not captured:\n%s", e.Log.String())
		}
		if len(e.Responses()) == 0 {
			t.Error("no answers were recorded")
		}
	})
}
