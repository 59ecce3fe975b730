package bench

import (
	"context"
	"errors"
	"net"
	"os"
	"testing"
)

// The loopback guard is what keeps a load test on this machine. The workplace these tests run
// in only ever targets loopback (127.0.0.0/8, ::1): every address below that is not loopback is
// only ever handed to the guard, never dialled, and the guard must refuse it before anything is
// sent.

// fixedResolver answers from a table; a missing name does not resolve.
type fixedResolver map[string][]string

func (f fixedResolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	ips, ok := f[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	out := make([]net.IPAddr, len(ips))
	for i, s := range ips {
		out[i] = net.IPAddr{IP: net.ParseIP(s)}
	}
	return out, nil
}

var testResolver = fixedResolver{
	"localhost":        {"127.0.0.1", "::1"},
	"example.com":      {"93.184.215.14"},
	"split.test":       {"127.0.0.1", "10.1.2.3"},
	"loopback-only.v6": {"::1"},
}

func TestCheckLoopback(t *testing.T) {
	for _, tc := range []struct {
		target string
		ok     bool
	}{
		{"127.0.0.1", true},
		{"127.0.0.1:8080", true},
		{"127.5.6.7", true},
		{"[::1]", true},
		{"[::1]:8080", true},
		{"::1", true},
		{"::ffff:127.0.0.1", true},
		{"localhost", true},
		{"localhost:9000", true},
		{"loopback-only.v6", true},

		{"10.0.0.1", false},
		{"10.0.0.1:80", false},
		{"192.168.1.1", false},
		{"172.16.0.1", false},
		{"0.0.0.0", false},
		{"[::]", false},
		{"::ffff:10.0.0.1", false},
		{"example.com", false},
		{"example.com:443", false},
		{"split.test", false}, // resolves to loopback and elsewhere: the dialer could pick either
		{"unresolvable.test", false},
		{"", false},
	} {
		t.Run(tc.target, func(t *testing.T) {
			err := CheckLoopback(t.Context(), testResolver, tc.target)
			if tc.ok && err != nil {
				t.Fatalf("refused: %v", err)
			}
			if !tc.ok && !errors.Is(err, ErrNotLoopback) {
				t.Fatalf("accepted (err %v)", err)
			}
		})
	}
}

// TestCheckLoopbackLocalhost asks the system's resolver, as the command does.
func TestCheckLoopbackLocalhost(t *testing.T) {
	if _, err := net.DefaultResolver.LookupIPAddr(t.Context(), "localhost"); err != nil {
		t.Skipf("localhost does not resolve here: %v", err)
	}
	if err := CheckLoopback(t.Context(), nil, "localhost"); err != nil {
		t.Fatal(err)
	}
	host, err := listenHost(t.Context(), nil, "localhost")
	if err != nil || (host != "127.0.0.1" && host != "::1") {
		t.Fatalf("listenHost(localhost) = %q, %v", host, err)
	}
}

func TestListenHost(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"127.0.0.1", "127.0.0.1"},
		{"[::1]", "::1"},
		{"localhost", "127.0.0.1"}, // IPv4 preferred
		{"loopback-only.v6", "::1"},
	} {
		got, err := listenHost(t.Context(), testResolver, tc.in)
		if err != nil || got != tc.want {
			t.Errorf("listenHost(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"10.0.0.1", "192.168.1.1", "example.com", "split.test", "127.0.0.1:8080"} {
		if got, err := listenHost(t.Context(), testResolver, in); err == nil {
			t.Errorf("listenHost(%q) = %q, want a refusal", in, got)
		}
	}
}

// TestDialerRefusesOtherAddresses checks the second line of defence: the dialer's Control
// function sees the address about to be connected to. Control runs before connect(2), so the
// refused addresses are never contacted.
func TestDialerRefusesOtherAddresses(t *testing.T) {
	for _, addr := range []string{"10.0.0.1:80", "192.168.1.1:443", "[2001:db8::1]:80"} {
		if err := loopbackControl("tcp", addr, nil); !errors.Is(err, ErrNotLoopback) {
			t.Errorf("Control(%s) = %v, want a refusal", addr, err)
		}
	}
	for _, addr := range []string{"127.0.0.1:80", "127.0.0.9:1", "[::1]:8080"} {
		if err := loopbackControl("tcp", addr, nil); err != nil {
			t.Errorf("Control(%s) = %v", addr, err)
		}
	}
	// And through a real dial: a listener on loopback is reachable.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c, err := loopbackDialer().DialContext(t.Context(), "tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
}

func TestPostgresDSNMustBeLoopback(t *testing.T) {
	for _, dsn := range []string{
		"postgres://postgres@127.0.0.1:5432/test?sslmode=disable",
		"postgres://postgres@localhost/test",
		"host=127.0.0.1 user=postgres dbname=test",
		"host=/var/run/postgresql user=postgres dbname=test", // a Unix socket
	} {
		if err := checkPostgresDSN(t.Context(), testResolver, dsn); err != nil {
			t.Errorf("%s: %v", dsn, err)
		}
	}
	for _, dsn := range []string{
		"postgres://postgres@10.0.0.1:5432/test",
		"postgres://postgres@192.168.1.1/test",
		"postgres://postgres@example.com/test",
		"host=127.0.0.1,10.0.0.1 user=postgres dbname=test", // a fallback host elsewhere
	} {
		if err := checkPostgresDSN(t.Context(), testResolver, dsn); !errors.Is(err, ErrNotLoopback) {
			t.Errorf("%s: accepted (err %v)", dsn, err)
		}
	}
}

// TestRunRefusesBeforeDoingAnything: a refused host ends the run before a directory, a
// database or a server exists.
func TestRunRefusesBeforeDoingAnything(t *testing.T) {
	tmp := t.TempDir()
	for _, host := range []string{"10.0.0.1", "192.168.1.1", "example.com"} {
		_, err := Run(t.Context(), Options{Host: host, InProcess: true, TempDir: tmp, Resolver: testResolver}, testDeps)
		if !errors.Is(err, ErrNotLoopback) {
			t.Errorf("--host %s: %v, want a refusal", host, err)
		}
	}
	_, err := Run(t.Context(), Options{Database: "postgres", DSN: "postgres://u@10.0.0.1/db", InProcess: true, TempDir: tmp, Resolver: testResolver}, testDeps)
	if !errors.Is(err, ErrNotLoopback) {
		t.Errorf("--dsn on 10.0.0.1: %v, want a refusal", err)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) > 0 {
		t.Errorf("a refused run left %d entries in its temporary directory", len(entries))
	}
}

func TestOptionsAreChecked(t *testing.T) {
	for _, o := range []Options{
		{Concurrency: -1, InProcess: true},
		{Concurrency: MaxConcurrency + 1, InProcess: true},
		{Duration: MaxDuration + 1, InProcess: true},
		{Requests: -5, InProcess: true},
		{Scenarios: []string{"authcode", "nope"}, InProcess: true},
		{Database: "mysql", InProcess: true},
		{Database: "postgres", InProcess: true},
		{DSN: "postgres://127.0.0.1/x", InProcess: true},
		{}, // no binary to run as the server
	} {
		if _, err := o.withDefaults(); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	o, err := Options{InProcess: true}.withDefaults()
	if err != nil || o.Concurrency != DefaultConcurrency || o.Duration != DefaultDuration || len(o.Scenarios) != len(scenarios) {
		t.Fatalf("defaults: %+v, %v", o, err)
	}
}
