package authz

import (
	"net"
	"net/url"
	"slices"
	"testing"

	"github.com/ory/fosite"

	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage"
)

func testSchool(t testing.TB, baseURL string) *school.School {
	t.Helper()
	return schools.School(t, schools.File(1, "a", "A", baseURL))
}

func TestParseResource(t *testing.T) {
	tn := testSchool(t, "https://school.example")
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"https://school.example", true},
		{"https://school.example/", true},
		{"https://School.Example/mcp", true},
		{"https://school.example:443/member/graphql", true},
		{"https://school.example/mcp?x=1", false},
		{"https://school.example/#f", false},
		{"https://user@school.example", false},
		{"http://school.example", false},
		{"https://school.example.evil.example", false},
		{"https://evil.example/https://school.example", false},
		{"https://school.example:8443", false},
		{"https://school.example/a/../b", false},
		{"/mcp", false},
		{"", false},
		{"school.example", false},
	} {
		if err := ParseResource(tn, tc.in); (err == nil) != tc.ok {
			t.Errorf("ParseResource(%q) = %v, want ok=%v", tc.in, err, tc.ok)
		}
	}
}

func TestSameResource(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"https://s.example", "https://s.example", true},
		{"https://s.example", "https://s.example/", true},
		{"https://s.example/mcp", "https://s.example/mcp", true},
		{"https://s.example/mcp", "https://s.example/mcp/", false},
		{"https://s.example/mcp", "https://s.example", false},
		{"", "https://s.example", false},
	} {
		if got := sameResource(tc.a, tc.b); got != tc.same {
			t.Errorf("sameResource(%q, %q) = %v", tc.a, tc.b, got)
		}
	}
}

func FuzzParseResource(f *testing.F) {
	tn := testSchool(f, "http://127.0.0.1:8080")
	for _, s := range []string{"http://127.0.0.1:8080", "http://127.0.0.1:8080/", "http://127.0.0.1:8080/mcp", "http://127.0.0.1:80", "http://[::1]:8080", "%", "http://127.0.0.1:8080#"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if ParseResource(tn, s) != nil {
			return
		}
		// Whatever is accepted names this school's origin and is comparable with itself.
		if !sameResource(s, s) {
			t.Fatalf("accepted %q is not the same resource as itself", s)
		}
	})
}

// FuzzRedirectURIMatching feeds arbitrary redirect URIs to the matching fosite applies for our
// clients: a match is only ever a registered URI, or a registered loopback URI on another port
// (RFC 8252 section 7.3) with the same host, path and query.
func FuzzRedirectURIMatching(f *testing.F) {
	registered := []string{"https://app.example/cb", "http://127.0.0.1/callback", "http://[::1]/cb"}
	c := fositeClient(testSchool(f, "https://school.example"), storage.Client{ID: "c", RedirectURIs: registered})
	for _, s := range []string{"https://app.example/cb", "http://127.0.0.1:5555/callback", "http://127.0.0.1:5555/callback/x",
		"https://app.example/cb?x", "http://localhost/callback", "http://[::1]:9/cb", "https://app.example/cb#f", "%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := fosite.MatchRedirectURIWithClientRedirectURIs(raw, c)
		if err != nil || raw == "" {
			return
		}
		if slices.Contains(registered, raw) {
			return
		}
		for _, r := range registered {
			ru, _ := url.Parse(r)
			if ru.Scheme == "http" && u.Scheme == "http" && ru.Hostname() == u.Hostname() && ru.Path == u.Path && ru.RawQuery == u.RawQuery {
				if ip := net.ParseIP(u.Hostname()); ip != nil && ip.IsLoopback() {
					return
				}
			}
		}
		t.Fatalf("%q matched without being registered or a loopback variant", raw)
	})
}
