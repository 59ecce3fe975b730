package cimd

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/server/servertest/schools"
)

// testCA is a certificate authority made for one test, and a server certificate it issued for
// the names the tests use: 127.0.0.1, ::1 and client.example (resolved by stub resolvers).
type testCA struct {
	pool   *x509.CertPool
	pem    []byte
	server tls.Certificate
}

func newTestCA(t testing.TB) *testCA {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "Proctor test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	leafKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	leafTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "client.example"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		DNSNames:    []string{"client.example"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		KeyUsage:    x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leafTmpl, caCert, &leafKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(caCert)
	return &testCA{
		pool:   pool,
		pem:    pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		server: tls.Certificate{Certificate: [][]byte{leafDER}, PrivateKey: leafKey},
	}
}

// docServer is a client's web site on 127.0.0.1 with the test CA's certificate. Each path has
// a handler; every request is counted.
type docServer struct {
	t      testing.TB
	srv    *httptest.Server
	hits   atomic.Int64
	mu     sync.Mutex
	routes map[string]http.HandlerFunc
}

func newDocServer(t testing.TB, ca *testCA) *docServer {
	s := &docServer{t: t, routes: map[string]http.HandlerFunc{}}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		s.mu.Lock()
		h := s.routes[r.URL.Path]
		s.mu.Unlock()
		if h == nil {
			http.NotFound(w, r)
			return
		}
		h(w, r)
	}))
	s.srv.TLS = &tls.Config{Certificates: []tls.Certificate{ca.server}}
	s.srv.StartTLS()
	t.Cleanup(s.srv.Close)
	return s
}

func (s *docServer) handle(path string, h http.HandlerFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.routes[path] = h
}

// url is the document URL of path on 127.0.0.1.
func (s *docServer) url(path string) string { return s.srv.URL + path }

// port is the server's port.
func (s *docServer) port() string {
	_, p, _ := net.SplitHostPort(s.srv.Listener.Addr().String())
	return p
}

// requestURL is the URL a request was made to, as its client_id would say.
func requestURL(r *http.Request) string { return "https://" + r.Host + r.URL.RequestURI() }

// goodDoc is a valid document for id.
func goodDoc(id string) map[string]any {
	u, _ := url.Parse(id)
	return map[string]any{
		"client_id":     id,
		"client_name":   "Course Helper",
		"redirect_uris": []string{"https://" + u.Host + "/oauth/callback", "http://127.0.0.1/callback", "http://[::1]/callback"},
		"grant_types":   []string{"authorization_code", "refresh_token"},
		"logo_uri":      "https://" + u.Host + "/logo.png", // unknown to us: ignored
	}
}

// serveDoc answers with the valid document for the request's URL, changed by mutate, and the
// given header pairs.
func serveDoc(mutate func(m map[string]any), header ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		m := goodDoc(requestURL(r))
		if mutate != nil {
			mutate(m)
		}
		w.Header().Set("Content-Type", "application/json")
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		_ = json.NewEncoder(w).Encode(m)
	}
}

// resolverFunc is an AddrResolver made of a function.
type resolverFunc func(ctx context.Context, network, host string) ([]netip.Addr, error)

func (f resolverFunc) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	return f(ctx, network, host)
}

// staticResolver answers every name with addrs.
func staticResolver(addrs ...string) AddrResolver {
	return resolverFunc(func(context.Context, string, string) ([]netip.Addr, error) {
		out := make([]netip.Addr, len(addrs))
		for i, a := range addrs {
			out[i] = netip.MustParseAddr(a)
		}
		return out, nil
	})
}

// clock is a settable time source.
type clock = schools.Clock

func newClock() *clock { return schools.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)) }

// devPolicy accepts 127.0.0.1 and client.example with the development address policy on.
func devPolicy() config.CIMD {
	return config.CIMD{AllowedHosts: []string{"127.0.0.1", "client.example"}, AllowPrivateNetworks: true,
		CacheMin: time.Minute, CacheMax: time.Hour}
}

func testSchool(p config.CIMD) *school.School {
	return &school.School{SchoolID: 1, Subdomain: "north", Name: "Northwind", Origin: "https://north.example", CIMD: p}
}

// newDocuments is a resolver trusting the test CA with a settable clock.
func newDocuments(ca *testCA, c *clock, reviewed ...string) *Documents {
	return New(reviewed, Options{RootCAs: ca.pool, Now: c.Now, Resolver: staticResolver("127.0.0.1")})
}
