package authz

import (
	"net"
	"net/url"
	"strconv"
	"testing"
)

// FuzzRedirectRegistered: whatever the requested redirect URI, a match is the registered URI
// itself or, for a loopback one, differs only in a port from 1 to 65535, as net/url reads both.
func FuzzRedirectRegistered(f *testing.F) {
	registered := []string{"http://127.0.0.1/callback", "http://[::1]:8080/cb?x=1", "https://app.example/cb"}
	for _, s := range []string{
		"http://127.0.0.1/callback", "http://127.0.0.1:5000/callback", "http://127.0.0.1:0/callback",
		"http://127.0.0.1:65536/callback", "http://127.0.0.1/%63allback", "http://[::1]/cb?x=1",
		"http://[::1]:1/cb?x=1", "http://evil@127.0.0.1/callback", "https://app.example/cb",
		"https://app.example:443/cb", "http://127.0.0.1:/callback", "http://127.0.0.1:080/callback",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, requested string) {
		if !redirectRegistered(registered, requested) {
			return
		}
		for _, reg := range registered {
			if reg == requested {
				return
			}
		}
		u, err := url.Parse(requested)
		if err != nil || u.Scheme != "http" || u.User != nil || u.Fragment != "" {
			t.Fatalf("%q matched: %+v %v", requested, u, err)
		}
		if port, err := strconv.Atoi(u.Port()); u.Port() != "" && (err != nil || port < 1 || port > 65535) {
			t.Fatalf("%q matched with port %q", requested, u.Port())
		}
		if ip := net.ParseIP(u.Hostname()); ip == nil || !ip.IsLoopback() {
			t.Fatalf("%q matched with a host that is no loopback address", requested)
		}
		for _, raw := range registered {
			r, _ := url.Parse(raw)
			if r.Hostname() == u.Hostname() && r.EscapedPath() == u.EscapedPath() && r.RawQuery == u.RawQuery && r.Scheme == u.Scheme {
				return
			}
		}
		t.Fatalf("%q matched no registered URI but for its port", requested)
	})
}

func TestRedirectRegistered(t *testing.T) {
	registered := []string{"http://127.0.0.1/callback", "http://[::1]/callback", "https://app.example/cb"}
	for requested, want := range map[string]bool{
		"http://127.0.0.1/callback":        true,
		"http://127.0.0.1:1/callback":      true,
		"http://127.0.0.1:65535/callback":  true,
		"http://[::1]:5000/callback":       true,
		"https://app.example/cb":           true,
		"http://127.0.0.1:0/callback":      false,
		"http://127.0.0.1:65536/callback":  false,
		"http://127.0.0.1:123456/callback": false,
		"http://127.0.0.1:/callback":       false,
		"http://127.0.0.1:-1/callback":     false,
		"http://127.0.0.1/%63allback":      false,
		"http://127.0.0.1/callback#x":      false,
		"http://127.0.0.2/callback":        false,
		"http://u@127.0.0.1/callback":      false,
		"https://app.example:443/cb":       false,
		"https://app.example/%63b":         false,
	} {
		if got := redirectRegistered(registered, requested); got != want {
			t.Errorf("%s: %v, want %v", requested, got, want)
		}
	}
}
