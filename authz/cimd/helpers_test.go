package cimd

import (
	"crypto/tls"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/server/servertest/schools"
)

// newTestCA makes a certificate authority for one test, and a server certificate it issued for
// the names the tests use: client.example (resolved by stub resolvers), 127.0.0.1 and ::1.
func newTestCA(t testing.TB) *schools.CA {
	t.Helper()
	return schools.NewCA(t, "client.example", "127.0.0.1", "::1")
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

func newDocServer(t testing.TB, ca *schools.CA) *docServer {
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
	s.srv.TLS = &tls.Config{Certificates: []tls.Certificate{ca.Server}}
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
func newDocuments(ca *schools.CA, c *clock, reviewed ...string) *Documents {
	return New(reviewed, Options{RootCAs: ca.Pool, Now: c.Now, Resolver: schools.StaticResolver("127.0.0.1")})
}
