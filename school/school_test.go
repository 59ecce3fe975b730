package school

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/config"
)

func mustSchool(t testing.TB, id int64, sub, baseURL string) *School {
	t.Helper()
	c := config.DefaultSchool()
	c.SchoolID, c.Subdomain, c.Name, c.BaseURL = id, sub, sub, baseURL
	tn, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	return tn
}

func TestResolve(t *testing.T) {
	a := mustSchool(t, 1, "a", "https://a.example/")
	b := mustSchool(t, 2, "b", "http://127.0.0.1:8080")
	c := mustSchool(t, 3, "c", "http://localhost:8080")
	v6 := mustSchool(t, 4, "v6", "https://[2001:db8::1]")
	r, err := NewRegistry([]*School{c, a, b, v6})
	if err != nil {
		t.Fatal(err)
	}
	if a.Origin != "https://a.example" || a.URL("/x") != "https://a.example/x" {
		t.Errorf("origin = %q", a.Origin)
	}
	if !a.HTTPS() || !v6.HTTPS() || b.HTTPS() || c.HTTPS() {
		t.Error("HTTPS() does not follow base_url's scheme")
	}
	for _, tc := range []struct {
		host string
		want *School
	}{
		{"a.example", a},
		{"A.Example", a},
		{"a.example:443", a},
		{"a.example:80", a}, // behind a TLS-terminating proxy
		{"a.example.", a},
		{"a.example:8443", nil},
		{"127.0.0.1:8080", b},
		{"127.0.0.1", nil},
		{"127.0.0.1:8081", nil},
		{"localhost:8080", c},
		{"LOCALHOST:8080", c},
		{"[2001:db8::1]", v6},
		{"[2001:db8::1]:443", v6},
		{"evil.example", nil},
		{"", nil},
	} {
		got, ok := r.Resolve(tc.host)
		if got != tc.want || ok != (tc.want != nil) {
			t.Errorf("Resolve(%q) = %v, %v; want %v", tc.host, got, ok, tc.want)
		}
	}
	if got, _ := r.BySchoolID(2); got != b {
		t.Error("BySchoolID")
	}
	if got, _ := r.BySubdomain("c"); got != c {
		t.Error("BySubdomain")
	}
	if all := r.All(); len(all) != 4 || all[0] != a || all[3] != v6 {
		t.Error("All not ordered by school id")
	}
}

func TestRegistryRefusesDuplicates(t *testing.T) {
	for name, pair := range map[string][2]*School{
		"host":      {mustSchool(t, 1, "a", "https://x.example"), mustSchool(t, 2, "b", "https://X.example:443")},
		"school id": {mustSchool(t, 1, "a", "https://x.example"), mustSchool(t, 1, "b", "https://y.example")},
		"subdomain": {mustSchool(t, 1, "a", "https://x.example"), mustSchool(t, 2, "a", "https://y.example")},
	} {
		if _, err := NewRegistry(pair[:]); err == nil {
			t.Errorf("%s: duplicate accepted", name)
		}
	}
}

func TestContextFailsClosed(t *testing.T) {
	if _, err := FromContext(context.Background()); !errors.Is(err, ErrNoSchool) {
		t.Fatalf("FromContext(empty) = %v", err)
	}
	if _, err := FromContext(NewContext(context.Background(), nil)); !errors.Is(err, ErrNoSchool) {
		t.Fatalf("FromContext(nil school) = %v", err)
	}
	a := mustSchool(t, 1, "a", "https://a.example")
	got, err := FromContext(NewContext(context.Background(), a))
	if err != nil || got != a {
		t.Fatalf("FromContext = %v, %v", got, err)
	}
}

func FuzzResolve(f *testing.F) {
	for _, s := range []string{"a.example", "A.EXAMPLE:443", "[::1]:80", "127.0.0.1:8080", ":", "[", "a.example..:443"} {
		f.Add(s)
	}
	a := &School{SchoolID: 1, Subdomain: "a", Host: "a.example"}
	r, _ := NewRegistry([]*School{a})
	f.Fuzz(func(t *testing.T, host string) {
		if got, ok := r.Resolve(host); ok && got != a {
			t.Fatalf("Resolve(%q) returned a school that is not registered", host)
		}
	})
}

// originSchools are the schools the origin tests compare URLs with: a name on https, a
// loopback address with a port, and an IPv6 literal.
func originSchools(t testing.TB) (a, loop, v6 *School) {
	t.Helper()
	return mustSchool(t, 1, "a", "https://a.example/"),
		mustSchool(t, 2, "loop", "http://127.0.0.1:8080"),
		mustSchool(t, 3, "v6", "https://[2001:db8::1]")
}

func TestSameOrigin(t *testing.T) {
	a, loop, v6 := originSchools(t)
	for _, tc := range []struct {
		school *School
		in     string
		want   bool
	}{
		{a, "https://a.example", true},
		{a, "https://a.example/", true},
		{a, "https://a.example/mcp", true},
		{a, "HTTPS://A.Example", true},
		{a, "https://a.example:443/", true}, // the default port written out
		{a, "https://a.example.", true},     // the same name, as Resolve takes it
		{a, "https://a.example:8443", false},
		{a, "https://a.example:80", false},
		{a, "https://a.example:", false},
		{a, "http://a.example", false},
		{a, "wss://a.example", false},
		{a, "https://a.example@evil.example", false},
		{a, "https://evil.example@a.example", false},
		{a, "https://a.example.evil.example", false},
		{a, "https://evil.example/https://a.example", false},
		{a, "https://a.example/?x=1", false},
		{a, "https://a.example/?", false},
		{a, "https://a.example/#f", false},
		{a, "https:a.example", false},
		{a, "//a.example", false},
		{a, "/mcp", false},
		{a, "", false},
		{loop, "http://127.0.0.1:8080", true},
		{loop, "http://127.0.0.1:8080/", true},
		{loop, "http://127.0.0.1", false},
		{loop, "http://127.0.0.1:80", false},
		{loop, "http://localhost:8080", false},
		{loop, "https://127.0.0.1:8080", false},
		{v6, "https://[2001:db8::1]", true},
		{v6, "https://[2001:DB8::1]:443/", true},
		{v6, "https://[2001:db8::2]", false},
	} {
		u, err := url.Parse(tc.in)
		if err != nil {
			t.Fatalf("%q: %v", tc.in, err)
		}
		if got := tc.school.SameOrigin(u); got != tc.want {
			t.Errorf("%s.SameOrigin(%q) = %v, want %v", tc.school.Origin, tc.in, got, tc.want)
		}
	}
	if a.SameOrigin(nil) {
		t.Error("SameOrigin(nil) is true")
	}
	// A School built by hand without a scheme in Origin matches nothing, and does not panic.
	bare := &School{Origin: "a.example", Host: "a.example"}
	if bare.SameOrigin(&url.URL{Scheme: "https", Host: "a.example"}) {
		t.Error("a school without a scheme matched")
	}
}

// FuzzSameOrigin: whatever is accepted has the school's scheme, host and port, read back by
// net/url rather than by config.HostKey.
func FuzzSameOrigin(f *testing.F) {
	for _, s := range []string{"https://a.example", "https://A.EXAMPLE:443/x", "https://a.example@evil.example",
		"https://a.example.:443", "http://127.0.0.1:8080/", "https://[2001:db8::1]:443", "https://a.example?#", "%", "https:"} {
		f.Add(s)
	}
	a, loop, v6 := originSchools(f)
	schools := []*School{a, loop, v6}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := url.Parse(s)
		if err != nil {
			return
		}
		for _, sc := range schools {
			if !sc.SameOrigin(u) {
				continue
			}
			o, _ := url.Parse(sc.Origin)
			if !strings.EqualFold(u.Scheme, o.Scheme) || u.User != nil {
				t.Fatalf("%s accepted %q: scheme or user info", sc.Origin, s)
			}
			if !strings.EqualFold(strings.TrimSuffix(u.Hostname(), "."), o.Hostname()) || portOf(u) != portOf(o) {
				t.Fatalf("%s accepted %q: another host or port", sc.Origin, s)
			}
		}
	})
}

// portOf is u's port, the scheme's default when none is written.
func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "http") {
		return "80"
	}
	return "443"
}

func TestPasskeyRPID(t *testing.T) {
	for _, c := range []struct {
		base, id string
		ok       bool
	}{
		{"https://north.example.com", "north.example.com", true},
		{"https://North.Example.com:8443/", "north.example.com", true},
		{"http://localhost:8080", "localhost", true},
		{"http://127.0.0.1:8080", "", false},
		{"http://[::1]:8080", "", false},
	} {
		if id, ok := mustSchool(t, 1, "s", c.base).PasskeyRPID(); id != c.id || ok != c.ok {
			t.Errorf("%s: PasskeyRPID = %q, %v; want %q, %v", c.base, id, ok, c.id, c.ok)
		}
	}
}

// Replace swaps the whole set at once: a removed school's host no longer resolves, a changed
// school is a new School, and the School an earlier lookup returned (a request in flight) is
// left as it was.
func TestReplace(t *testing.T) {
	a := mustSchool(t, 1, "a", "https://a.example")
	gone := mustSchool(t, 2, "gone", "https://gone.example")
	r, err := NewRegistry([]*School{a, gone})
	if err != nil {
		t.Fatal(err)
	}
	inFlight, _ := r.Resolve("a.example")

	renamed := mustSchool(t, 1, "a", "https://a.example")
	renamed.Name = "A renamed"
	added := mustSchool(t, 3, "added", "https://added.example")
	next, err := NewRegistry([]*School{added, renamed})
	if err != nil {
		t.Fatal(err)
	}
	r.Replace(next)

	if got, _ := r.Resolve("a.example"); got != renamed {
		t.Errorf("a.example resolves to %+v, want the new school", got)
	}
	if got, _ := r.Resolve("added.example"); got != added {
		t.Error("the added school does not resolve")
	}
	if _, ok := r.Resolve("gone.example"); ok {
		t.Error("the removed school still resolves")
	}
	if _, ok := r.BySchoolID(2); ok {
		t.Error("the removed school is still found by id")
	}
	if got, _ := r.BySubdomain("added"); got != added {
		t.Error("BySubdomain does not see the new set")
	}
	if all := r.All(); len(all) != 2 || all[0] != renamed || all[1] != added {
		t.Errorf("All = %v", all)
	}
	if inFlight != a || inFlight.Name != "a" {
		t.Error("the school a request already holds was changed")
	}
}

// Lookups running beside Replace each see one of the sets, never a torn one (run with -race:
// the swap and the lookups share no unsynchronised memory).
func TestReplaceWhileResolving(t *testing.T) {
	one := mustSchool(t, 1, "a", "https://a.example")
	two := mustSchool(t, 1, "a", "https://a.example")
	r, err := NewRegistry([]*School{one})
	if err != nil {
		t.Fatal(err)
	}
	sets := []*Registry{}
	for _, s := range []*School{one, two} {
		next, err := NewRegistry([]*School{s})
		if err != nil {
			t.Fatal(err)
		}
		sets = append(sets, next)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 1000; i++ {
			r.Replace(sets[i%2])
		}
	}()
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		all := r.All()
		if len(all) != 1 || (all[0] != one && all[0] != two) {
			t.Fatalf("All = %v: not one of the sets", all)
		}
		if got, ok := r.Resolve("a.example"); !ok || (got != one && got != two) {
			t.Fatalf("Resolve = %v, %v", got, ok)
		}
	}
}
