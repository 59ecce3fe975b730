package cimd

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/proctorhq/proctor/authz"
	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage"
)

func TestResolveGoodDocument(t *testing.T) {
	ca := newTestCA(t)
	s := newDocServer(t, ca)
	s.handle("/client.json", serveDoc(func(m map[string]any) { m["application_type"] = "native" }))
	s.handle("/utf8.json", serveDoc(nil, "Content-Type", "application/json; charset=utf-8"))
	d := newDocuments(ca, newClock())

	id := s.url("/client.json")
	c, err := d.Resolve(t.Context(), testSchool(devPolicy()), id)
	if err != nil {
		t.Fatal(err)
	}
	want := storage.Client{
		ID: id, Kind: storage.ClientOperator, Name: "Course Helper", TokenEndpointAuthMethod: storage.AuthMethodNone,
		ApplicationType: "native", RedirectURIs: goodDoc(id)["redirect_uris"].([]string),
	}
	if c.ID != want.ID || c.Kind != want.Kind || c.Name != want.Name || c.TokenEndpointAuthMethod != want.TokenEndpointAuthMethod ||
		c.ApplicationType != want.ApplicationType || !slices.Equal(c.RedirectURIs, want.RedirectURIs) || c.SecretHash != "" {
		t.Errorf("client = %+v\nwant     %+v", c, want)
	}
	for _, sc := range c.Scopes {
		if strings.HasPrefix(sc, "account:") || strings.HasSuffix(sc, ":write") {
			t.Errorf("an unreviewed document client may be granted %s", sc)
		}
	}
	for _, sc := range []string{"openid", "profile", "email", "courses:read", "students:read"} {
		if !slices.Contains(c.Scopes, sc) {
			t.Errorf("scopes %v lack %s", c.Scopes, sc)
		}
	}

	c, err = d.Resolve(t.Context(), testSchool(devPolicy()), s.url("/utf8.json"))
	if err != nil || c.ApplicationType != "web" {
		t.Fatalf("application/json with a charset parameter: %+v %v", c, err)
	}
}

func TestScopes(t *testing.T) {
	const id = "https://client.example/client.json"
	d := New([]string{"https://reviewed.example/client.json"}, Options{})
	for name, tc := range map[string]struct {
		doc  Document
		want []string
	}{
		"unreviewed, no scope field": {Document{ClientID: id}, nil},
		"unreviewed, narrowed":       {Document{ClientID: id, Scope: []string{"openid", "courses:read", "courses:write", "account:read", "nonsense"}}, []string{"openid", "courses:read"}},
		"reviewed, narrowed": {Document{ClientID: "https://reviewed.example/client.json", Scope: []string{"email", "courses:write", "account:write"}},
			[]string{"email", "courses:write"}},
	} {
		t.Run(name, func(t *testing.T) {
			got := d.Scopes(tc.doc)
			if tc.want != nil && !slices.Equal(got, tc.want) {
				t.Errorf("Scopes = %v, want %v", got, tc.want)
			}
			if tc.want == nil && (!slices.Contains(got, "analytics:read") || slices.Contains(got, "courses:write")) {
				t.Errorf("Scopes = %v: want every read scope and no write scope", got)
			}
		})
	}
	reviewed := d.Scopes(Document{ClientID: "https://reviewed.example/client.json"})
	if !slices.Contains(reviewed, "courses:write") || !slices.Contains(reviewed, "openid") || slices.Contains(reviewed, "account:read") {
		t.Errorf("reviewed scopes = %v: want identity and every operator scope, no member scope", reviewed)
	}
}

// TestResolveRefusals: every way a document can fail is a *authz.ClientError with a plain
// description, and none of them is cached.
func TestResolveRefusals(t *testing.T) {
	ca := newTestCA(t)
	s := newDocServer(t, ca)
	c := newClock()
	d := newDocuments(ca, c)
	big := strings.Repeat("x", MaxDocumentSize)
	for name, tc := range map[string]struct {
		handler http.HandlerFunc
		want    error
		desc    string
	}{
		"wrong client_id": {serveDoc(func(m map[string]any) { m["client_id"] = "https://client.example/other.json" }),
			ErrClientIDMismatch, "does not list this client_id"},
		"client_id equivalent but not equal": {func(w http.ResponseWriter, r *http.Request) {
			// Simple string comparison (draft section 4): a differently cased scheme is another URL.
			serveDoc(func(m map[string]any) { m["client_id"] = "HTTPS" + strings.TrimPrefix(requestURL(r), "https") })(w, r)
		}, ErrClientIDMismatch, "does not list this client_id"},
		"oversize with Content-Length": {serveDoc(func(m map[string]any) { m["padding"] = big }), ErrTooLarge, "too large"},
		"oversize, chunked": {func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"client_id":"` + requestURL(r) + `","padding":"`))
			w.(http.Flusher).Flush()
			w.Write([]byte(big + `"}`))
		}, ErrTooLarge, "too large"},
		"redirect": {func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/client.json", http.StatusFound)
		}, ErrRedirected, "could not be fetched"},
		"not found":    {http.NotFound, ErrStatus, "could not be fetched"},
		"server error": {func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(500) }, ErrStatus, "could not be fetched"},
		"no content":   {func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(204) }, ErrStatus, "could not be fetched"},
		"html":         {serveDoc(nil, "Content-Type", "text/html"), ErrContentType, "not served as JSON"},
		"no content type": {func(w http.ResponseWriter, r *http.Request) {
			w.Header()["Content-Type"] = nil
			b, _ := json.Marshal(goodDoc(requestURL(r)))
			w.Write(b)
		}, ErrContentType, "not served as JSON"},
		"json lookalike": {serveDoc(nil, "Content-Type", "application/jsonp"), ErrContentType, "not served as JSON"},
		"not json": {func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte("<html>"))
		}, ErrInvalidDocument, "is invalid"},
		"foreign redirect":   {serveDoc(func(m map[string]any) { m["redirect_uris"] = []string{"https://evil.example/cb"} }), ErrRedirectURI, "outside its own host"},
		"http redirect":      {serveDoc(func(m map[string]any) { m["redirect_uris"] = []string{"http://127.0.0.2/cb"} }), ErrRedirectURI, "outside its own host"},
		"secret auth method": {serveDoc(func(m map[string]any) { m["token_endpoint_auth_method"] = "client_secret_basic" }), ErrSharedSecret, "client secret"},
		"client_secret":      {serveDoc(func(m map[string]any) { m["client_secret"] = "hunter2" }), ErrSharedSecret, "client secret"},
		"private_key_jwt":    {serveDoc(func(m map[string]any) { m["token_endpoint_auth_method"] = "private_key_jwt" }), ErrAuthMethod, "authentication method"},
		"no client_name":     {serveDoc(func(m map[string]any) { delete(m, "client_name") }), ErrInvalidDocument, "is invalid"},
		"no redirect_uris":   {serveDoc(func(m map[string]any) { m["redirect_uris"] = []string{} }), ErrInvalidDocument, "is invalid"},
	} {
		t.Run(name, func(t *testing.T) {
			path := "/" + strings.ReplaceAll(name, " ", "-") + ".json"
			s.handle(path, tc.handler)
			before := s.hits.Load()
			// The second resolve is within the failure hold and gets the same answer without a
			// fetch; the third is after it and fetches again: nothing of the response was kept.
			for i := range 3 {
				if i == 2 {
					c.Advance(DefaultFetchLimits.FailureHold)
				}
				_, err := d.Resolve(t.Context(), testSchool(devPolicy()), s.url(path))
				if !errors.Is(err, tc.want) {
					t.Fatalf("error = %v, want %v", err, tc.want)
				}
				var ce *authz.ClientError
				if !errors.As(err, &ce) || !strings.Contains(ce.Description, tc.desc) || strings.Contains(ce.Description, "127.0.0.1") {
					t.Fatalf("want a ClientError saying %q without detail, got %#v", tc.desc, err)
				}
				if errors.Is(err, storage.ErrNotFound) {
					t.Fatal("a broken document must not read as an unknown client")
				}
			}
			if n := s.hits.Load() - before; n != 2 {
				t.Errorf("%d requests for three resolves, want 2 (one held by the failure hold)", n)
			}
		})
	}
	if d.cache.len() != 0 {
		t.Errorf("cache holds %d entries after failures only", d.cache.len())
	}
}

func TestResolveExactLimit(t *testing.T) {
	ca := newTestCA(t)
	s := newDocServer(t, ca)
	s.handle("/client.json", func(w http.ResponseWriter, r *http.Request) {
		b, _ := json.Marshal(goodDoc(requestURL(r)))
		pad := MaxDocumentSize - len(b)
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
		w.Write([]byte(strings.Repeat(" ", pad)))
	})
	if _, err := newDocuments(ca, newClock()).Resolve(t.Context(), testSchool(devPolicy()), s.url("/client.json")); err != nil {
		t.Fatalf("a document of exactly %d bytes: %v", MaxDocumentSize, err)
	}
}

func TestResolvePolicy(t *testing.T) {
	ca := newTestCA(t)
	s := newDocServer(t, ca)
	s.handle("/client.json", serveDoc(nil))
	d := newDocuments(ca, newClock())
	id := s.url("/client.json")

	t.Run("host not permitted is an unknown client", func(t *testing.T) {
		p := devPolicy()
		p.AllowedHosts = []string{"other.example"}
		_, err := d.Resolve(t.Context(), testSchool(p), id)
		var ce *authz.ClientError
		if !errors.Is(err, storage.ErrNotFound) || errors.As(err, &ce) {
			t.Fatalf("error = %v, want storage.ErrNotFound and no ClientError", err)
		}
		if s.hits.Load() != 0 {
			t.Error("a document of a host the school does not permit was fetched")
		}
	})
	t.Run("private address with the development setting off", func(t *testing.T) {
		p := devPolicy()
		p.AllowPrivateNetworks = false
		_, err := d.Resolve(t.Context(), testSchool(p), id)
		var ce *authz.ClientError
		if !errors.Is(err, ErrForbiddenAddress) || !errors.As(err, &ce) {
			t.Fatalf("error = %v, want a ClientError for a special-use address", err)
		}
		if s.hits.Load() != 0 {
			t.Error("the document was fetched from 127.0.0.1 with private networks refused")
		}
	})
	t.Run("open accepts any host", func(t *testing.T) {
		p := devPolicy()
		p.AllowedHosts, p.Open = nil, true
		if _, err := d.Resolve(t.Context(), testSchool(p), id); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("a document cached under the development setting is not served without it", func(t *testing.T) {
		p := devPolicy()
		if _, err := d.Resolve(t.Context(), testSchool(p), id); err != nil {
			t.Fatal(err)
		}
		p.AllowPrivateNetworks = false
		if _, err := d.Resolve(t.Context(), testSchool(p), id); !errors.Is(err, ErrForbiddenAddress) {
			t.Fatalf("error = %v, want the strict school to fetch for itself and be refused", err)
		}
	})
	t.Run("invalid URL", func(t *testing.T) {
		_, err := d.Resolve(t.Context(), testSchool(devPolicy()), "https://127.0.0.1/a/../client.json")
		var ce *authz.ClientError
		if !errors.Is(err, ErrInvalidURL) || !errors.As(err, &ce) {
			t.Fatalf("error = %v", err)
		}
	})
}

func TestCache(t *testing.T) {
	ca := newTestCA(t)
	for name, tc := range map[string]struct {
		header   []string
		min, max time.Duration
		// fresh and stale are ages at which the document is, and is no longer, reused.
		fresh, stale time.Duration
	}{
		"max-age":                 {[]string{"Cache-Control", "public, max-age=120"}, time.Minute, time.Hour, 119 * time.Second, 121 * time.Second},
		"no headers: lower bound": {nil, time.Minute, time.Hour, 59 * time.Second, 61 * time.Second},
		"max-age below the minimum": {[]string{"Cache-Control", "max-age=5"}, time.Minute, time.Hour,
			30 * time.Second, 61 * time.Second},
		"max-age above the maximum": {[]string{"Cache-Control", "max-age=86400"}, time.Minute, time.Hour,
			59 * time.Minute, 61 * time.Minute},
		"no-store with a minimum": {[]string{"Cache-Control", "no-store"}, time.Minute, time.Hour, 30 * time.Second, 61 * time.Second},
		"Expires":                 {[]string{"Expires", "Sun, 01 Mar 2026 12:10:00 GMT", "Date", "Sun, 01 Mar 2026 12:00:00 GMT"}, time.Minute, time.Hour, 9 * time.Minute, 11 * time.Minute},
	} {
		t.Run(name, func(t *testing.T) {
			s := newDocServer(t, ca)
			s.handle("/client.json", serveDoc(nil, tc.header...))
			c := newClock()
			d := newDocuments(ca, c)
			p := devPolicy()
			p.CacheMin, p.CacheMax = tc.min, tc.max
			resolve := func() {
				t.Helper()
				if _, err := d.Resolve(t.Context(), testSchool(p), s.url("/client.json")); err != nil {
					t.Fatal(err)
				}
			}
			resolve()
			resolve()
			if n := s.hits.Load(); n != 1 {
				t.Fatalf("%d requests for two resolves, want a cache hit", n)
			}
			c.Advance(tc.fresh)
			resolve()
			if n := s.hits.Load(); n != 1 {
				t.Fatalf("refetched at age %v", tc.fresh)
			}
			c.Advance(tc.stale - tc.fresh)
			resolve()
			if n := s.hits.Load(); n != 2 {
				t.Fatalf("not refetched at age %v", tc.stale)
			}
		})
	}
	t.Run("no-store without a minimum is never reused", func(t *testing.T) {
		s := newDocServer(t, ca)
		s.handle("/client.json", serveDoc(nil, "Cache-Control", "no-store"))
		d := newDocuments(ca, newClock())
		p := devPolicy()
		p.CacheMin = 0
		for range 3 {
			if _, err := d.Resolve(t.Context(), testSchool(p), s.url("/client.json")); err != nil {
				t.Fatal(err)
			}
		}
		if n := s.hits.Load(); n != 3 {
			t.Errorf("%d requests for three resolves of a no-store document", n)
		}
	})
	t.Run("a failure is not cached and does not evict a later success", func(t *testing.T) {
		s := newDocServer(t, ca)
		var mu sync.Mutex
		fail := true
		s.handle("/client.json", func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			f := fail
			mu.Unlock()
			if f {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			serveDoc(nil)(w, r)
		})
		c := newClock()
		d := newDocuments(ca, c)
		if _, err := d.Resolve(t.Context(), testSchool(devPolicy()), s.url("/client.json")); !errors.Is(err, ErrStatus) {
			t.Fatalf("error = %v", err)
		}
		mu.Lock()
		fail = false
		mu.Unlock()
		// The failed URL is not fetched again for FailureHold (limits.go); after it, it is.
		c.Advance(DefaultFetchLimits.FailureHold)
		for range 2 {
			if _, err := d.Resolve(t.Context(), testSchool(devPolicy()), s.url("/client.json")); err != nil {
				t.Fatal(err)
			}
		}
		if n := s.hits.Load(); n != 2 {
			t.Errorf("%d requests, want 2 (the failure, then one fetch cached)", n)
		}
	})
	t.Run("bounded size", func(t *testing.T) {
		s := newDocServer(t, ca)
		s.handle("/a.json", serveDoc(nil))
		s.handle("/b.json", serveDoc(nil))
		s.handle("/c.json", serveDoc(nil))
		d := New(nil, Options{RootCAs: ca.Pool, MaxEntries: 2, Resolver: schools.StaticResolver("127.0.0.1")})
		for _, p := range []string{"/a.json", "/b.json", "/c.json", "/a.json"} {
			if _, err := d.Resolve(t.Context(), testSchool(devPolicy()), s.url(p)); err != nil {
				t.Fatal(err)
			}
		}
		if n := s.hits.Load(); n != 4 || d.cache.len() != 2 {
			t.Errorf("%d requests, %d entries: want the least recently used evicted", n, d.cache.len())
		}
	})
}

// TestSingleFlight: concurrent resolves of one URL share one fetch.
func TestSingleFlight(t *testing.T) {
	ca := newTestCA(t)
	s := newDocServer(t, ca)
	release := make(chan struct{})
	s.handle("/client.json", func(w http.ResponseWriter, r *http.Request) {
		<-release
		serveDoc(nil)(w, r)
	})
	d := newDocuments(ca, newClock())
	var wg sync.WaitGroup
	errs := make(chan error, 10)
	for range 10 {
		wg.Go(func() {
			_, err := d.Resolve(context.Background(), testSchool(devPolicy()), s.url("/client.json"))
			errs <- err
		})
	}
	// Let every caller join the flight before the server answers: a caller that came after
	// the fetch ended would find the document cached, but one between its cache miss and the
	// flight could start a second fetch, so the test waits for all ten to be counted in.
	for {
		d.mu.Lock()
		joined := 0
		for _, f := range d.flights {
			joined += f.callers
		}
		n := len(d.flights)
		d.mu.Unlock()
		if n == 1 && joined == 10 {
			break
		}
		time.Sleep(time.Millisecond) // a poll: the condition above is what is waited for
	}
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := s.hits.Load(); n != 1 {
		t.Errorf("%d fetches for concurrent resolves, want 1", n)
	}
}

// TestDNSRebinding: a name that answers a public address for the first connection and a
// private one for the next must never be connected to at the private address.
func TestDNSRebinding(t *testing.T) {
	ca := newTestCA(t)
	s := newDocServer(t, ca)
	s.handle("/client.json", serveDoc(nil))
	const public = "93.184.215.14"
	var mu sync.Mutex
	var lookups int
	var dialled []string
	resolver := schools.ResolverFunc(func(ctx context.Context, network, host string) ([]netip.Addr, error) {
		mu.Lock()
		defer mu.Unlock()
		lookups++
		if lookups == 1 {
			return []netip.Addr{netip.MustParseAddr(public)}, nil
		}
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	})
	d := New(nil, Options{RootCAs: ca.Pool, Resolver: resolver, Now: newClock().Now,
		// The "public" address is played by the test server: whatever is dialled is recorded
		// and connected there.
		dial: func(ctx context.Context, network, address string) (net.Conn, error) {
			mu.Lock()
			dialled = append(dialled, address)
			mu.Unlock()
			var nd net.Dialer
			return nd.DialContext(ctx, network, s.srv.Listener.Addr().String())
		}})
	p := config.CIMD{AllowedHosts: []string{"client.example"}} // no caching, no private networks
	id := "https://client.example:" + s.port() + "/client.json"

	if _, err := d.Resolve(t.Context(), testSchool(p), id); err != nil {
		t.Fatalf("first resolve (public answer): %v", err)
	}
	d.fetcher.closeIdle() // the next fetch must dial again
	_, err := d.Resolve(t.Context(), testSchool(p), id)
	if !errors.Is(err, ErrForbiddenAddress) {
		t.Fatalf("second resolve (rebound to 127.0.0.1): error = %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(dialled) != 1 || dialled[0] != net.JoinHostPort(public, s.port()) {
		t.Errorf("dialled %v, want only the checked public address", dialled)
	}
}

// TestSystemRoots: without RootCAs the system roots are used, and on Linux they honour
// SSL_CERT_FILE. The system pool is loaded once per process, so a child process runs the
// resolve with the variable set.
func TestSystemRoots(t *testing.T) {
	if u := os.Getenv("CIMD_TEST_SYSTEM_ROOTS_URL"); u != "" {
		d := New(nil, Options{Resolver: schools.StaticResolver("127.0.0.1")})
		if _, err := d.Resolve(context.Background(), testSchool(devPolicy()), u); err != nil {
			t.Fatal(err)
		}
		return
	}
	if testing.Short() {
		t.Skip("runs a child process")
	}
	ca := newTestCA(t)
	s := newDocServer(t, ca)
	s.handle("/client.json", serveDoc(nil))
	file := filepath.Join(t.TempDir(), "ca.PEM")
	if err := os.WriteFile(file, ca.PEM, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSystemRoots$", "-test.count=1")
	cmd.Env = append(os.Environ(), "SSL_CERT_FILE="+file, "CIMD_TEST_SYSTEM_ROOTS_URL="+s.url("/client.json"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("resolve trusting SSL_CERT_FILE: %v\n%s", err, out)
	}
	if s.hits.Load() != 1 {
		t.Error("the child process did not fetch the document")
	}
}

// TestFetchedResults checks that Options.Fetched is told each lookup's outcome: a fetched
// document, one served from the cache, a failed fetch and an invalid document.
func TestFetchedResults(t *testing.T) {
	ca := newTestCA(t)
	s := newDocServer(t, ca)
	s.handle("/client.json", serveDoc(nil))
	s.handle("/invalid.json", serveDoc(func(m map[string]any) { m["client_id"] = "https://elsewhere.example/c.json" }))
	s.handle("/gone.json", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "gone", http.StatusGone) })
	var mu sync.Mutex
	var got []FetchResult
	d := New(nil, Options{RootCAs: ca.Pool, Now: newClock().Now, Resolver: schools.StaticResolver("127.0.0.1"),
		Fetched: func(r FetchResult) { mu.Lock(); got = append(got, r); mu.Unlock() }})
	ts := testSchool(devPolicy())
	for _, path := range []string{"/client.json", "/client.json", "/gone.json", "/invalid.json"} {
		_, _ = d.Resolve(t.Context(), ts, s.url(path))
	}
	want := []FetchResult{FetchOK, FetchCached, FetchFailed, FetchInvalid}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != len(want) {
		t.Fatalf("told %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("told %v, want %v", got, want)
			break
		}
	}
}
