package server

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/discovery"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/gormstore"
	"github.com/proctorhq/proctor/storage/gormstore/storetest"
)

type fixture struct {
	srv      *Server
	store    *gormstore.Store
	a, b     *school.School
	public   *httptest.Server
	internal *httptest.Server
	// tls serves the public handler over https: school B (lumen, https://lumen.example) is
	// served over https only.
	tls *httptest.Server
}

func newFixture(t *testing.T, mutate func(*config.Server)) *fixture {
	t.Helper()
	st := storetest.Open(t, gormstore.DriverSQLite)
	list, reg := schools.Sync(t, st,
		schools.File(1, "north", "Northwind", "http://127.0.0.1:8080"),
		schools.File(2, "lumen", "Lumen", "https://lumen.example"))
	sc := config.DefaultServer()
	sc.Secret = schools.Secret
	if mutate != nil {
		mutate(&sc)
	}
	s, err := New(Deps{Config: sc, Schools: reg, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{srv: s, store: st, a: list[0], b: list[1]}
	f.public = httptest.NewServer(s.PublicHandler())
	f.internal = httptest.NewServer(s.InternalHandler())
	f.tls = httptest.NewTLSServer(s.PublicHandler())
	t.Cleanup(f.tls.Close)
	t.Cleanup(f.public.Close)
	t.Cleanup(f.internal.Close)
	return f
}

// get sends a GET over plain http to the public test server addressed to host.
func (f *fixture) get(t *testing.T, host, path string, header http.Header) *http.Response {
	t.Helper()
	return f.send(t, f.public, http.MethodGet, host, path, header)
}

// getTLS sends a GET over https to the public test server addressed to host.
func (f *fixture) getTLS(t *testing.T, host, path string, header http.Header) *http.Response {
	t.Helper()
	return f.send(t, f.tls, http.MethodGet, host, path, header)
}

// send sends a request without a body to srv addressed to host; redirects are not followed.
func (f *fixture) send(t *testing.T, srv *httptest.Server, method, host, path string, header http.Header) *http.Response {
	t.Helper()
	return f.sendBody(t, srv, method, host, path, nil, header)
}

// sendBody is send with a request body.
func (f *fixture) sendBody(t *testing.T, srv *httptest.Server, method, host, path string, body io.Reader, header http.Header) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(method, srv.URL+path, body)
	req.Host = host
	for k, v := range header {
		req.Header[k] = v
	}
	client := srv.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// internalGet fetches path from the internal listener and returns the status and the body.
func (f *fixture) internalGet(t *testing.T, path string, header http.Header) (int, string) {
	t.Helper()
	resp := f.send(t, f.internal, http.MethodGet, "", path, header)
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// serve runs Serve on two fresh listeners and returns the public one's address and a stop
// function, which cancels Serve and fails the test unless it returns cleanly.
func (f *fixture) serve(t *testing.T) (publicAddr string, stop func()) {
	t.Helper()
	pub, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	in, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.srv.Serve(ctx, pub, in) }()
	return pub.Addr().String(), func() {
		t.Helper()
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("Serve: %v", err)
			}
		case <-time.After(2 * time.Minute):
			t.Fatal("Serve did not return after cancel")
		}
	}
}

// schoolGet fetches path from school tn the way its base_url says: https or plain http.
func (f *fixture) schoolGet(t *testing.T, tn *school.School, path string) *http.Response {
	t.Helper()
	host := strings.TrimPrefix(strings.TrimPrefix(tn.Origin, "https://"), "http://")
	if tn.HTTPS() {
		return f.getTLS(t, host, path, nil)
	}
	return f.get(t, host, path, nil)
}

// decode reads a JSON answer into a value of type T.
func decode[T any](t *testing.T, resp *http.Response) T {
	t.Helper()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return schools.DecodeJSON[T](t, raw)
}

func TestUnknownHostIs404(t *testing.T) {
	f := newFixture(t, nil)
	for _, host := range []string{"evil.example", "127.0.0.1:9999", "lumen.example.evil.example"} {
		resp := f.get(t, host, "/.well-known/oauth-authorization-server", nil)
		if resp.StatusCode != http.StatusNotFound {
			t.Fatalf("%s: status %d", host, resp.StatusCode)
		}
		body := decode[map[string]string](t, resp)
		if body["error"] != "not_found" || resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s: body %v", host, body)
		}
	}
}

func TestDiscoveryPerSchool(t *testing.T) {
	f := newFixture(t, nil)
	for _, tn := range []*school.School{f.a, f.b} {
		host := tn.Origin
		for _, path := range []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"} {
			resp := f.schoolGet(t, tn, path)
			if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
				t.Fatalf("%s%s: status %d, CORS %q", host, path, resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
			}
			md := decode[discovery.ServerMetadata](t, resp)
			if md.Issuer != tn.Origin {
				t.Errorf("%s%s: issuer %q, want %q", host, path, md.Issuer, tn.Origin)
			}
		}
		prm := decode[discovery.ResourceMetadata](t, f.schoolGet(t, tn, "/.well-known/oauth-protected-resource"))
		if prm.Resource != tn.Origin || len(prm.AuthorizationServers) != 1 || prm.AuthorizationServers[0] != tn.Origin {
			t.Errorf("%s: protected resource metadata %+v", host, prm)
		}
		mcp := decode[discovery.ResourceMetadata](t, f.schoolGet(t, tn, "/.well-known/oauth-protected-resource/mcp"))
		if mcp.Resource != tn.Origin+"/mcp" {
			t.Errorf("%s: /mcp resource = %q", host, mcp.Resource)
		}
	}
}

func TestCORSPreflight(t *testing.T) {
	f := newFixture(t, nil)
	resp := f.send(t, f.tls, http.MethodOptions, "lumen.example", "/.well-known/openid-configuration",
		http.Header{"Origin": {"https://app.example"}, "Access-Control-Request-Method": {"GET"}})
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") != "*" ||
		!strings.Contains(resp.Header.Get("Access-Control-Allow-Methods"), "GET") {
		t.Fatalf("preflight: %d %v", resp.StatusCode, resp.Header)
	}
}

func TestSecurityHeadersAndRequestID(t *testing.T) {
	f := newFixture(t, nil)
	resp := f.get(t, "127.0.0.1:8080", "/nope", nil)
	if resp.StatusCode != 404 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	for k, want := range map[string]string{
		"X-Content-Type-Options":  "nosniff",
		"X-Frame-Options":         "DENY",
		"Referrer-Policy":         "no-referrer",
		"Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
	} {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if resp.Header.Get("Strict-Transport-Security") != "" {
		t.Error("HSTS on a plain-http request")
	}
	if id := resp.Header.Get("X-Request-ID"); !requestIDPattern.MatchString(id) {
		t.Errorf("X-Request-ID = %q", id)
	}
	// An untrusted client cannot choose its request id.
	resp = f.get(t, "127.0.0.1:8080", "/nope", http.Header{"X-Request-Id": {"chosen-by-client"}})
	if resp.Header.Get("X-Request-ID") == "chosen-by-client" {
		t.Error("request id taken from an untrusted client")
	}
}

// TestForwardedHeadersOnlyFromTrustedProxies: a client cannot reach another school, fake its
// scheme or its address by sending X-Forwarded-* itself.
func TestForwardedHeadersOnlyFromTrustedProxies(t *testing.T) {
	untrusted := newFixture(t, nil)
	resp := untrusted.get(t, "evil.example", "/.well-known/openid-configuration",
		http.Header{"X-Forwarded-Host": {"lumen.example"}, "X-Forwarded-Proto": {"https"}})
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("X-Forwarded-Host believed from an untrusted peer: %d", resp.StatusCode)
	}

	trusted := newFixture(t, func(s *config.Server) { s.TrustedProxies = []string{"127.0.0.0/8"} })
	resp = trusted.get(t, "internal-name:8080", "/.well-known/openid-configuration",
		http.Header{"X-Forwarded-Host": {"lumen.example"}, "X-Forwarded-Proto": {"https"}})
	if resp.StatusCode != 200 {
		t.Fatalf("X-Forwarded-Host from a trusted proxy ignored: %d", resp.StatusCode)
	}
	if decode[discovery.ServerMetadata](t, resp).Issuer != "https://lumen.example" {
		t.Error("wrong school")
	}
	if resp.Header.Get("Strict-Transport-Security") == "" {
		t.Error("X-Forwarded-Proto: https from a trusted proxy not believed")
	}
}

func TestBodyLimit(t *testing.T) {
	f := newFixture(t, func(s *config.Server) { s.HTTP.MaxBodyBytes = 1024 })
	resp := f.sendBody(t, f.public, http.MethodPost, "lumen.example", "/.well-known/openid-configuration", strings.NewReader(strings.Repeat("x", 4096)), nil)
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d, want 413", resp.StatusCode)
	}
}

func TestInternalEndpoints(t *testing.T) {
	f := newFixture(t, nil)
	f.get(t, "127.0.0.1:8080", "/.well-known/openid-configuration", nil)
	for path, want := range map[string]int{"/healthz": 200, "/readyz": 200, "/metrics": 200, "/nope": 404} {
		status, body := f.internalGet(t, path, nil)
		if status != want {
			t.Errorf("%s: %d, want %d", path, status, want)
		}
		if path == "/metrics" && !strings.Contains(body,
			`proctor_http_requests_total{listener="public",method="GET",route="/.well-known/openid-configuration",status="200"} 1`) {
			t.Errorf("metrics do not count the discovery request:\n%s", body)
		}
	}
	// The public listener does not serve internal routes.
	if resp := f.get(t, "127.0.0.1:8080", "/metrics", nil); resp.StatusCode != 404 {
		t.Errorf("/metrics on the public listener: %d", resp.StatusCode)
	}
	// With the database gone, the server is not ready.
	f.store.Close()
	if status, _ := f.internalGet(t, "/readyz", nil); status != http.StatusServiceUnavailable {
		t.Errorf("/readyz with the database closed: %d", status)
	}
}

// TestSchoolIsolationThroughTheEdge: a request addressed to school A, served by the real school
// middleware and the real store, reads only school A's rows, however it names school B's.
func TestSchoolIsolationThroughTheEdge(t *testing.T) {
	f := newFixture(t, nil)
	for _, tn := range []*school.School{f.a, f.b} {
		ctx := school.NewContext(context.Background(), tn)
		data := &storage.SchoolData{Courses: []storage.CourseSeed{
			{OfferSeed: storage.OfferSeed{Slug: "shared-slug", Title: "Course of " + tn.Subdomain, Currency: "USD"}, Published: true},
			{OfferSeed: storage.OfferSeed{Slug: "only-" + tn.Subdomain, Title: "Only " + tn.Subdomain, Currency: "USD"}, Published: true},
		}}
		if _, err := f.store.ImportSchoolData(ctx, data, storage.ImportOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// A handler that lists what the store returns for the request's school, behind the same
	// school resolution every public route has.
	list := f.srv.resolveSchool(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		courses, _, err := f.store.ListCourses(r.Context(), false, storage.Page{First: 100})
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		_, errB := f.store.GetCourseBySlug(r.Context(), r.URL.Query().Get("slug"))
		var titles []string
		for _, c := range courses {
			titles = append(titles, c.Title)
		}
		json.NewEncoder(w).Encode(map[string]any{"titles": titles, "other_found": errB == nil})
	}))
	for _, tc := range []struct {
		host, otherSlug string
		want            []string
	}{
		{"127.0.0.1:8080", "only-lumen", []string{"Course of north", "Only north"}},
		{"lumen.example", "only-north", []string{"Course of lumen", "Only lumen"}},
	} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, "/?slug="+tc.otherSlug, nil)
		req.Host = tc.host
		list.ServeHTTP(rec, req)
		var got struct {
			Titles     []string `json:"titles"`
			OtherFound bool     `json:"other_found"`
		}
		json.NewDecoder(rec.Body).Decode(&got)
		if strings.Join(got.Titles, "|") != strings.Join(tc.want, "|") || got.OtherFound {
			t.Errorf("%s sees %v (other school's course found: %v)", tc.host, got.Titles, got.OtherFound)
		}
	}
}

func TestServeShutsDownOnCancel(t *testing.T) {
	f := newFixture(t, func(s *config.Server) { s.HTTP.ShutdownGrace = 2 * time.Second })
	addr, stop := f.serve(t)

	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/.well-known/openid-configuration", nil)
	req.Host = "127.0.0.1:8080"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	stop()
	if _, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		t.Error("public listener still accepts connections after shutdown")
	}
}
