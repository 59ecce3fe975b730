package resource

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/server/servertest/schools"
)

func TestBearerToken(t *testing.T) {
	for _, tc := range []struct {
		headers []string
		token   string
		bad     bool
	}{
		{nil, "", false},
		{[]string{"Bearer abc.DEF-_~+/="}, "abc.DEF-_~+/=", false},
		{[]string{"bearer abc"}, "abc", false},
		{[]string{"Bearer  abc"}, "abc", false},
		{[]string{"Basic abc"}, "", true},
		{[]string{"Bearer"}, "", true},
		{[]string{"Bearer "}, "", true},
		{[]string{"Bearer a b"}, "", true},
		{[]string{"Bearer a\"b"}, "", true},
		{[]string{"Bearer a", "Bearer b"}, "", true},
		{[]string{"Bearer " + strings.Repeat("a", 5000)}, "", true},
	} {
		r, _ := http.NewRequest(http.MethodGet, "/", nil)
		for _, h := range tc.headers {
			r.Header.Add("Authorization", h)
		}
		got, err := BearerToken(r)
		if got != tc.token || (err != nil) != tc.bad {
			t.Errorf("%q: got %q, %v", tc.headers, got, err)
		}
	}
}

func FuzzBearerToken(f *testing.F) {
	for _, s := range []string{"Bearer abc", "bearer  x.y", "Basic Zm9v", "Bearer", "Bearer \x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		r, _ := http.NewRequest(http.MethodGet, "/", nil)
		r.Header.Set("Authorization", h)
		tok, err := BearerToken(r)
		if err == nil && tok != "" && strings.ContainsAny(tok, " \t\r\n\"") {
			t.Fatalf("accepted token %q with a separator", tok)
		}
	})
}

// TestChallengeScopes: every 401 of /mcp and the Member API (no token, a malformed or bad
// token, one of another organization) names the member scopes and the resource's own metadata;
// a challenge with a scope of its own keeps it; a 403 without one names none (no scope would
// help); the origin's challenges name the root metadata and no scope.
func TestChallengeScopes(t *testing.T) {
	tn := schools.School(t, schools.File(1, "north", "Northwind", "https://north.example/"))
	answer := func(f func(http.ResponseWriter, *http.Request)) (int, string) {
		r := httptest.NewRequest(http.MethodPost, "https://north.example/", nil)
		r = r.WithContext(school.NewContext(r.Context(), tn))
		w := httptest.NewRecorder()
		f(w, r)
		return w.Code, w.Header().Get("WWW-Authenticate")
	}
	for _, p := range []Protected{MCP, MemberAPI} {
		metadata := `resource_metadata="https://north.example/.well-known/oauth-protected-resource` + p.Path + `"`
		for _, err := range []error{ErrNoToken, ErrInvalidToken, ErrOtherOrganization} {
			status, h := answer(func(w http.ResponseWriter, r *http.Request) { p.WriteError(w, r, err) })
			if status != 401 || !strings.Contains(h, `scope="account:read account:write"`) || !strings.Contains(h, metadata) {
				t.Errorf("%s, %v: %d %q", p.Path, err, status, h)
			}
		}
		_, h := answer(func(w http.ResponseWriter, r *http.Request) {
			p.Challenge(w, r, 401, "invalid_token", "This tool needs account:read.", "account:read")
		})
		if !strings.Contains(h, `scope="account:read",`) {
			t.Errorf("%s: a 401 naming its own scope: %q", p.Path, h)
		}
		_, h = answer(func(w http.ResponseWriter, r *http.Request) {
			p.Challenge(w, r, 403, "insufficient_scope", "Not an operator.", "")
		})
		if strings.Contains(h, "scope=") || !strings.Contains(h, metadata) {
			t.Errorf("%s: a 403 without a scope: %q", p.Path, h)
		}
		if status, h := answer(func(w http.ResponseWriter, r *http.Request) { p.WriteError(w, r, ErrNoVerdict) }); status != 503 || h != "" {
			t.Errorf("%s: no verdict: %d %q", p.Path, status, h)
		}
	}
	_, h := answer(func(w http.ResponseWriter, r *http.Request) { WriteError(w, r, ErrInvalidToken) })
	if strings.Contains(h, "scope=") || !strings.Contains(h, `resource_metadata="https://north.example/.well-known/oauth-protected-resource"`) {
		t.Errorf("origin: %q", h)
	}
}
