package securitytest

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/proctorhq/proctor/authz"
	"github.com/proctorhq/proctor/authz/cimd"
	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/server/servertest"
	"github.com/proctorhq/proctor/server/servertest/schools"
)

// documentHost is the name of the client's web site; the test's resolver decides its addresses.
const documentHost = "client.example"

// documentSite is a client's web site on 127.0.0.1 over TLS, with a certificate for
// documentHost that only the test's pool trusts; it counts the requests it gets.
type documentSite struct {
	srv  *httptest.Server
	pool *x509.CertPool
	hits atomic.Int64
}

func newDocumentSite(t *testing.T) *documentSite {
	t.Helper()
	ca := schools.NewCA(t, documentHost, "127.0.0.1")
	d := &documentSite{pool: ca.Pool}
	d.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.hits.Add(1)
		id := "https://" + r.Host + r.URL.RequestURI()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"client_id": id, "client_name": "Document Client",
			"redirect_uris": []string{"http://127.0.0.1/cimd/callback"},
			"grant_types":   []string{"authorization_code", "refresh_token"},
		})
	}))
	d.srv.TLS = &tls.Config{Certificates: []tls.Certificate{ca.Server}}
	d.srv.StartTLS()
	t.Cleanup(d.srv.Close)
	return d
}

// clientID is the document URL the site serves, named by documentHost.
func (d *documentSite) clientID() string {
	_, port, _ := net.SplitHostPort(d.srv.Listener.Addr().String())
	return "https://" + documentHost + ":" + port + "/client.json"
}

// switchingResolver answers documentHost with the addresses it is set to, and counts lookups.
type switchingResolver struct {
	mu      sync.Mutex
	answer  []netip.Addr
	lookups int
}

func (r *switchingResolver) set(addrs ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.answer = nil
	for _, a := range addrs {
		r.answer = append(r.answer, netip.MustParseAddr(a))
	}
}

func (r *switchingResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lookups++
	if host != documentHost {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return append([]netip.Addr(nil), r.answer...), nil
}

// documentEnv is a server whose schools accept documents from documentHost, resolved by docs;
// a school whose subdomain private approves has the development address policy.
func documentEnv(t *testing.T, backend string, docs *cimd.Documents, private func(subdomain string) bool) *servertest.Env {
	return newEnv(t, backend, func(o *servertest.Options) {
		o.Documents = docs
		prev := o.ConfigureSchool
		o.ConfigureSchool = func(c *config.School) {
			prev(c)
			c.CIMD.AllowedHosts = []string{documentHost}
			c.CIMD.AllowPrivateNetworks = private(c.Subdomain)
		}
	})
}

// TestMetadataDocumentsAddressGuard drives the authorization endpoint with a Client ID Metadata
// Document whose host name the test resolves. School A fetches documents strictly; school B has
// the development policy (loopback and private addresses allowed). A name that resolves to
// loopback, to an IPv4-mapped or NAT64 form of it, to the unspecified address, to link-local
// (cloud metadata) or to a mix of a public and a loopback address is never fetched from at A:
// the authorization ends on an error page and the document's site receives nothing. B fetches
// from loopback (the control), never from link-local or the unspecified address, and what B
// fetched under its policy is not reused by A.
//
// The draft's DNS-rebinding case (a public answer for the check, a loopback one for the
// connection) needs a public address to be dialled first; package cimd tests it
// (TestDNSRebinding) through its unexported dial hook, which this suite cannot reach.
func TestMetadataDocumentsAddressGuard(t *testing.T) {
	schools.Backends(t, func(t *testing.T, backend string) {
		site := newDocumentSite(t)
		resolver := &switchingResolver{}
		// Each case below fetches the same URL; the clock moves past the failure hold before
		// each, so that every case reaches the address guard rather than a held failure.
		var clockMu sync.Mutex
		now := time.Now()
		docs := cimd.New(nil, cimd.Options{RootCAs: site.pool, Resolver: resolver, Now: func() time.Time {
			clockMu.Lock()
			defer clockMu.Unlock()
			return now
		}})
		nextCase := func() {
			clockMu.Lock()
			defer clockMu.Unlock()
			now = now.Add(cimd.DefaultFetchLimits.FailureHold)
		}
		e := documentEnv(t, backend, docs, func(school string) bool { return school == "lumen" })
		authorize := func(s *servertest.School) *servertest.Response {
			c := servertest.Client{ID: site.clientID(), RedirectURI: "http://127.0.0.1/cimd/callback"}
			return e.Send(http.MethodGet, servertest.AuthorizeURL(s, c, servertest.NewPKCE(), "openid", "courses:read"), nil)
		}
		refused := func(s *servertest.School, what string) {
			t.Helper()
			nextCase()
			lookups := resolver.lookups
			before := site.hits.Load()
			r := authorize(s)
			if r.Status < 400 || r.Header.Get("Location") != "" || !r.IsHTML() {
				t.Errorf("%s at %s: %d (Location %q), want an error page", what, s.Subdomain, r.Status, r.Header.Get("Location"))
			}
			if got := site.hits.Load() - before; got != 0 {
				t.Errorf("%s at %s: the document's site was reached %d times", what, s.Subdomain, got)
			}
			if resolver.lookups == lookups {
				t.Errorf("%s at %s: the name was not looked up, so the guard did not decide", what, s.Subdomain)
			}
		}

		for what, answer := range map[string][]string{
			"loopback":                  {"127.0.0.1"},
			"IPv4-mapped loopback":      {"::ffff:127.0.0.1"},
			"NAT64 loopback":            {"64:ff9b::7f00:1"},
			"IPv6 loopback":             {"::1"},
			"unspecified":               {"0.0.0.0"},
			"link-local metadata":       {"169.254.169.254"},
			"public and loopback mixed": {"93.184.215.14", "127.0.0.1"}, // refused before any dial
		} {
			resolver.set(answer...)
			refused(e.A, what)
		}
		for what, answer := range map[string][]string{
			"unspecified":         {"0.0.0.0"},
			"link-local metadata": {"169.254.169.254"},
		} {
			resolver.set(answer...)
			refused(e.B, what+" (development policy)")
		}

		// The control: B may fetch from loopback, so the document resolves there.
		nextCase()
		resolver.set("127.0.0.1")
		r := authorize(e.B)
		loc, _ := url.Parse(r.Header.Get("Location"))
		if r.Status != http.StatusSeeOther || loc == nil || !strings.HasPrefix(loc.Path, "/login") || site.hits.Load() == 0 {
			t.Fatalf("control at B (development policy, loopback): %d Location %q, %d fetches\n%.300s", r.Status, r.Header.Get("Location"), site.hits.Load(), r.Body)
		}
		// ... and what B fetched is not A's to use.
		refused(e.A, "a document B has cached")
		if resolver.lookups == 0 {
			t.Error("the resolver was never asked: the guard did not run")
		}
		if !authz.IsMetadataDocumentURL(site.clientID()) {
			t.Errorf("%s is not a metadata document URL", site.clientID())
		}
	})
}

// TestMetadataDocumentFetchesBounded: every unauthenticated authorization request with a new
// client_id URL used to cost an outbound fetch, so 20 requests with ?bust=N made 20 fetches of
// the client's site. The fetch limits (package cimd, limits.go) let a burst through up to the
// host's budget and answer the rest with an error page, without reaching the site. The clock is
// stopped so that no bucket refills while the test runs, however slow the machine.
func TestMetadataDocumentFetchesBounded(t *testing.T) {
	schools.Backends(t, func(t *testing.T, backend string) {
		site := newDocumentSite(t)
		resolver := &switchingResolver{}
		resolver.set("127.0.0.1")
		stopped := time.Now()
		docs := cimd.New(nil, cimd.Options{RootCAs: site.pool, Resolver: resolver, Now: func() time.Time { return stopped }})
		e := documentEnv(t, backend, docs, func(string) bool { return true })
		burst := cimd.DefaultFetchLimits.PerHost.Burst
		refused := 0
		for i := range 2 * burst {
			c := servertest.Client{ID: fmt.Sprintf("%s?bust=%d", site.clientID(), i), RedirectURI: "http://127.0.0.1/cimd/callback"}
			r := e.Send(http.MethodGet, servertest.AuthorizeURL(e.B, c, servertest.NewPKCE(), "openid", "courses:read"), nil)
			switch {
			case r.Status == http.StatusSeeOther && strings.HasPrefix(r.Header.Get("Location"), "/login"):
			case r.Status >= 400 && r.Header.Get("Location") == "" && r.IsHTML():
				refused++
			default:
				t.Fatalf("request %d: %d (Location %q)", i, r.Status, r.Header.Get("Location"))
			}
		}
		if got := site.hits.Load(); got != int64(burst) || refused != burst {
			t.Errorf("%d requests with cache-busting client_ids: %d fetches and %d refused, want %d and %d",
				2*burst, got, refused, burst, burst)
		}
	})
}
