package look

import (
	"bytes"
	"context"
	"crypto/x509"
	"errors"
	"image"
	"image/color"
	"image/png"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage"
)

// pngLogo is a small real PNG.
func pngLogo(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	img.Set(1, 1, color.RGBA{0x1d, 0x4e, 0xd8, 0xff})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// logoHost is an https server on loopback that counts the requests it answers.
type logoHost struct {
	*httptest.Server
	requests atomic.Int64
}

func newLogoHost(t *testing.T, h http.HandlerFunc) *logoHost {
	t.Helper()
	lh := &logoHost{}
	lh.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		lh.requests.Add(1)
		h(w, r)
	}))
	t.Cleanup(lh.Close)
	return lh
}

// newHeldLogoHost is a logo host that holds every request until release is closed, then answers
// it with a logo.
func newHeldLogoHost(t *testing.T) (host *logoHost, release chan struct{}) {
	t.Helper()
	logo := pngLogo(t)
	release = make(chan struct{})
	return newLogoHost(t, func(w http.ResponseWriter, r *http.Request) {
		<-release
		w.Write(logo)
	}), release
}

// newService is a Service that trusts hosts' test certificates and reaches loopback, waiting
// for a logo fetch as long as it takes: a test asserts what a page shows, not how fast.
func newService(t *testing.T, clk *schools.Clock, hosts ...*logoHost) *Service {
	t.Helper()
	pool := x509.NewCertPool()
	for _, h := range hosts {
		pool.AddCert(h.Certificate())
	}
	return New(Options{AllowPrivateNetworks: true, RootCAs: pool, Now: clk.Now, Wait: time.Hour})
}

func newClock() *schools.Clock {
	return schools.NewClock(time.Date(2026, 11, 16, 9, 0, 0, 0, time.UTC))
}

// get requests path from s's asset handler.
func get(t *testing.T, s *Service, path string, current CurrentFunc) *http.Response {
	t.Helper()
	rec := httptest.NewRecorder()
	s.Handler(current).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec.Result()
}

func body(t *testing.T, r *http.Response) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := b.ReadFrom(r.Body); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestLookLogoServed(t *testing.T) {
	logo := pngLogo(t)
	host := newLogoHost(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/logo.png" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream") // the bytes decide
		w.Write(logo)
	})
	s := newService(t, newClock(), host)
	a := storage.Appearance{PrimaryColor: "#1d4ed8", Theme: "light", LogoURL: host.URL + "/logo.png"}

	l := s.Look(t.Context(), a)
	if l.Theme != "light" || l.StylesheetPath != StylesheetPath(PaletteOf(a)) {
		t.Errorf("look %+v", l)
	}
	if !regexp.MustCompile(`^/assets/logo-[0-9a-f]{16}$`).MatchString(l.LogoPath) {
		t.Fatalf("logo path %q", l.LogoPath)
	}
	resp := get(t, s, l.LogoPath, nil)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/png" ||
		resp.Header.Get("X-Content-Type-Options") != "nosniff" ||
		!strings.Contains(resp.Header.Get("Cache-Control"), "immutable") || !bytes.Equal(body(t, resp), logo) {
		t.Errorf("logo answer %d %v", resp.StatusCode, resp.Header)
	}
	resp = get(t, s, l.StylesheetPath, nil)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/css; charset=utf-8" ||
		resp.Header.Get("X-Content-Type-Options") != "nosniff" || !bytes.Equal(body(t, resp), CSS(PaletteOf(a))) {
		t.Errorf("stylesheet answer %d %v", resp.StatusCode, resp.Header)
	}

	// The next pages use the cache.
	for range 3 {
		if again := s.Look(t.Context(), a); again != l {
			t.Errorf("second look %+v, first %+v", again, l)
		}
	}
	if n := host.requests.Load(); n != 1 {
		t.Errorf("%d fetches, want 1", n)
	}
}

// TestLookGuard: without AllowPrivateNetworks a logo on loopback is never connected to.
func TestLookGuard(t *testing.T) {
	host := newLogoHost(t, func(w http.ResponseWriter, r *http.Request) { w.Write(pngLogo(t)) })
	pool := x509.NewCertPool()
	pool.AddCert(host.Certificate())
	s := New(Options{RootCAs: pool, Wait: time.Hour})
	if l := s.Look(t.Context(), storage.Appearance{LogoURL: host.URL + "/logo.png"}); l.LogoPath != "" {
		t.Errorf("a loopback logo was fetched: %+v", l)
	}
	if n := host.requests.Load(); n != 0 {
		t.Errorf("%d requests reached the loopback host", n)
	}
}

func TestLookNoLogo(t *testing.T) {
	logo := pngLogo(t)
	svg := []byte(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`)
	big := append(append([]byte{}, logo...), make([]byte, DefaultMaxLogoSize)...)
	host := newLogoHost(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/big.png":
			w.Write(big)
		case "/big-chunked.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write(big[:1024])
			w.(http.Flusher).Flush()
			w.Write(big[1024:])
		case "/page.html":
			w.Header().Set("Content-Type", "image/png")
			w.Write([]byte("<!doctype html><html><body>not a logo</body></html>"))
		case "/logo.svg":
			w.Header().Set("Content-Type", "image/svg+xml")
			w.Write(svg)
		case "/gone.png":
			http.NotFound(w, r)
		case "/to-http":
			http.Redirect(w, r, "http://"+r.Host+"/logo.png", http.StatusFound)
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		}
	})
	// A port nothing listens on.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()

	s := newService(t, newClock(), host)
	for _, u := range []string{
		host.URL + "/big.png", host.URL + "/big-chunked.png", host.URL + "/page.html", host.URL + "/logo.svg",
		host.URL + "/gone.png", host.URL + "/to-http", host.URL + "/loop", "https://" + closed + "/logo.png",
		strings.Replace(host.URL, "https:", "http:", 1) + "/logo.png", // not https: never fetched
	} {
		if l := s.Look(t.Context(), storage.Appearance{LogoURL: u}); l.LogoPath != "" {
			t.Errorf("%s: logo %q", u, l.LogoPath)
		}
	}
	// Refused for the reason the case is about.
	for path, want := range map[string]error{
		"/big.png": errLogoSize, "/big-chunked.png": errLogoSize, "/page.html": errLogoType,
		"/logo.svg": errLogoType, "/gone.png": errLogoStatus,
	} {
		if _, _, err := s.fetchLogo(t.Context(), host.URL+path); !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", path, err, want)
		}
	}
}

func TestLookRedirect(t *testing.T) {
	logo := pngLogo(t)
	host := newLogoHost(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/logo.png", http.StatusMovedPermanently)
			return
		}
		w.Write(logo)
	})
	s := newService(t, newClock(), host)
	if l := s.Look(t.Context(), storage.Appearance{LogoURL: host.URL + "/old"}); l.LogoPath == "" {
		t.Error("no logo after an https redirect")
	}
}

// TestLookFailureRemembered: a broken URL is fetched once per RetryAfter, not once per page.
func TestLookFailureRemembered(t *testing.T) {
	var broken atomic.Bool
	broken.Store(true)
	logo := pngLogo(t)
	host := newLogoHost(t, func(w http.ResponseWriter, r *http.Request) {
		if broken.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		w.Write(logo)
	})
	clk := newClock()
	s := newService(t, clk, host)
	a := storage.Appearance{LogoURL: host.URL + "/logo.png"}
	for range 3 {
		if l := s.Look(t.Context(), a); l.LogoPath != "" {
			t.Fatalf("logo %q from a failing host", l.LogoPath)
		}
	}
	if n := host.requests.Load(); n != 1 {
		t.Errorf("%d fetches of a failing URL, want 1", n)
	}
	broken.Store(false)
	clk.Advance(DefaultRetryAfter - time.Second)
	if l := s.Look(t.Context(), a); l.LogoPath != "" || host.requests.Load() != 1 {
		t.Errorf("fetched again before RetryAfter: %+v", l)
	}
	clk.Advance(time.Second)
	if l := s.Look(t.Context(), a); l.LogoPath == "" || host.requests.Load() != 2 {
		t.Errorf("after RetryAfter: %+v, %d fetches", l, host.requests.Load())
	}
}

// TestLookWaitBound: a page does not wait for a slow logo host longer than Options.Wait; the
// fetch goes on and a later page shows the logo. A stale logo is shown while it is refreshed.
func TestLookWaitBound(t *testing.T) {
	host, release := newHeldLogoHost(t)
	pool := x509.NewCertPool()
	pool.AddCert(host.Certificate())
	clk := newClock()
	s := New(Options{AllowPrivateNetworks: true, RootCAs: pool, Now: clk.Now, Wait: time.Nanosecond})
	a := storage.Appearance{LogoURL: host.URL + "/logo.png"}

	if l := s.Look(t.Context(), a); l.LogoPath != "" {
		t.Fatalf("logo %q while its host has not answered", l.LogoPath)
	}
	close(release)
	// What a later page finds once the fetch is over (waiting on the flight, not on a clock).
	src, _ := s.logoSource(t.Context(), a)
	name := s.logo(t.Context(), src, time.Hour)
	if name == "" {
		t.Fatal("the fetch started by the first page did not bring the logo")
	}
	if l := s.Look(t.Context(), a); l.LogoPath != endpoint.Assets+name {
		t.Errorf("later page %+v", l)
	}
	if n := host.requests.Load(); n != 1 {
		t.Errorf("%d fetches", n)
	}

	// Expired: still shown, at once, while the refresh runs.
	clk.Advance(DefaultKeepFor + time.Second)
	if l := s.Look(t.Context(), a); l.LogoPath != endpoint.Assets+name {
		t.Errorf("stale logo not shown during its refresh: %+v", l)
	}
}

// TestLookSharedFetch: pages drawn together share one fetch.
func TestLookSharedFetch(t *testing.T) {
	host, release := newHeldLogoHost(t)
	s := newService(t, newClock(), host)
	a := storage.Appearance{LogoURL: host.URL + "/logo.png"}
	var wg sync.WaitGroup
	paths := make([]string, 8)
	for i := range paths {
		wg.Go(func() { paths[i] = s.Look(context.Background(), a).LogoPath })
	}
	close(release)
	wg.Wait()
	for _, p := range paths {
		if p == "" || p != paths[0] {
			t.Fatalf("paths %q", paths)
		}
	}
	if n := host.requests.Load(); n != 1 {
		t.Errorf("%d fetches for %d pages", n, len(paths))
	}
}

func TestLookTheme(t *testing.T) {
	s := New(Options{})
	for in, want := range map[string]string{"": "auto", "auto": "auto", "light": "light", "dark": "dark", "sepia": "auto"} {
		l := s.Look(t.Context(), storage.Appearance{Theme: in})
		if l != (Look{Theme: want}) {
			t.Errorf("theme %q: %+v", in, l)
		}
	}
}

func TestServeAsset(t *testing.T) {
	s := New(Options{})
	a := storage.Appearance{PrimaryColor: "#1d4ed8"}
	b := storage.Appearance{PrimaryColor: "#fb923c", Theme: "dark"}
	la, lb := s.Look(t.Context(), a), s.Look(t.Context(), b)
	if la.StylesheetPath == lb.StylesheetPath {
		t.Fatal("two schools' stylesheets share a path")
	}
	for l, app := range map[Look]storage.Appearance{la: a, lb: b} {
		if got := body(t, get(t, s, l.StylesheetPath, nil)); !bytes.Equal(got, CSS(PaletteOf(app))) {
			t.Errorf("%s serves %q", l.StylesheetPath, got)
		}
	}
	for _, p := range []string{
		"/assets/look-0123456789abcdef.css", "/assets/logo-0123456789abcdef", "/assets/look-0123.css",
		"/assets/look-0123456789ABCDEF.css", "/assets/logo-../../etc/passwd", "/assets/look-",
	} {
		if r := get(t, s, p, nil); r.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %d", p, r.StatusCode)
		}
	}
	rec := httptest.NewRecorder()
	if s.ServeAsset(rec, httptest.NewRequest(http.MethodGet, "/assets/proctor.css", nil), nil) {
		t.Error("the base stylesheet was taken as the look's")
	}
	rec = httptest.NewRecorder()
	if !s.ServeAsset(rec, httptest.NewRequest(http.MethodPost, la.StylesheetPath, nil), nil) || rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", rec.Code)
	}
	// A client that has it revalidates for nothing.
	req := httptest.NewRequest(http.MethodGet, la.StylesheetPath, nil)
	req.Header.Set("If-None-Match", get(t, s, la.StylesheetPath, nil).Header.Get("ETag"))
	rec = httptest.NewRecorder()
	s.ServeAsset(rec, req, nil)
	if rec.Code != http.StatusNotModified {
		t.Errorf("If-None-Match: %d", rec.Code)
	}
}

// TestServeAssetOtherReplica: a replica that did not draw the page serves its assets from the
// school's current appearance.
func TestServeAssetOtherReplica(t *testing.T) {
	logo := pngLogo(t)
	host := newLogoHost(t, func(w http.ResponseWriter, r *http.Request) { w.Write(logo) })
	a := storage.Appearance{PrimaryColor: "#1d4ed8", LogoURL: host.URL + "/logo.png"}
	drew := newService(t, newClock(), host).Look(t.Context(), a)

	other := newService(t, newClock(), host)
	current := func(context.Context) (storage.Appearance, error) { return a, nil }
	if r := get(t, other, drew.StylesheetPath, current); r.StatusCode != 200 || !bytes.Equal(body(t, r), CSS(PaletteOf(a))) {
		t.Errorf("stylesheet at the other replica: %d", r.StatusCode)
	}
	if r := get(t, other, drew.LogoPath, current); r.StatusCode != 200 || !bytes.Equal(body(t, r), logo) {
		t.Errorf("logo at the other replica: %d", r.StatusCode)
	}
	// Another school's current appearance does not make this one's assets.
	third := newService(t, newClock(), host)
	elsewhere := func(context.Context) (storage.Appearance, error) {
		return storage.Appearance{PrimaryColor: "#0f766e"}, nil
	}
	if r := get(t, third, drew.StylesheetPath, elsewhere); r.StatusCode != http.StatusNotFound {
		t.Errorf("another school's stylesheet served: %d", r.StatusCode)
	}
}

// TestCacheBounded: the cache holds at most MaxEntries logos.
func TestCacheBounded(t *testing.T) {
	logo := pngLogo(t)
	host := newLogoHost(t, func(w http.ResponseWriter, r *http.Request) { w.Write(logo) })
	pool := x509.NewCertPool()
	pool.AddCert(host.Certificate())
	s := New(Options{AllowPrivateNetworks: true, RootCAs: pool, Wait: time.Hour, MaxEntries: 3})
	for i := range 10 {
		s.Look(t.Context(), storage.Appearance{PrimaryColor: Color{uint8(i), 0, 0}.String(), LogoURL: host.URL + "/logo.png?v=" + string(rune('a'+i))})
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.logos) > 3 || len(s.styles) > 3 || len(s.logoNames) > 3 {
		t.Errorf("%d logos, %d names, %d stylesheets held", len(s.logos), len(s.logoNames), len(s.styles))
	}
}

// TestLookLogoFile: an uploaded logo (Appearance.LogoFileID) is read through Options.LogoFile
// for the school in the context, served under its content's hash like a fetched one, preferred
// to a URL, and held to the same rules (a raster image, not too large). The cache keeps
// schools apart: another school naming the same id gets what its own reading gives.
func TestLookLogoFile(t *testing.T) {
	logo := pngLogo(t)
	host := newLogoHost(t, func(w http.ResponseWriter, r *http.Request) { w.Write(logo) })
	files := map[int64][]byte{7: logo, 8: []byte("just some text, not an image"), 9: append(append([]byte{}, logo...), make([]byte, 600<<10)...)}
	var reads atomic.Int64
	read := func(ctx context.Context, id int64) ([]byte, error) {
		reads.Add(1)
		if t, err := school.FromContext(ctx); err != nil || t.SchoolID != 1 {
			return nil, errors.New("not this school's file")
		}
		b, ok := files[id]
		if !ok {
			return nil, errors.New("no such file")
		}
		return b, nil
	}
	pool := x509.NewCertPool()
	pool.AddCert(host.Certificate())
	s := New(Options{AllowPrivateNetworks: true, RootCAs: pool, Now: newClock().Now, Wait: time.Nanosecond, LogoFile: read})
	one := school.NewContext(t.Context(), &school.School{SchoolID: 1})
	two := school.NewContext(t.Context(), &school.School{SchoolID: 2})

	// Both kinds named: the file wins, and the URL is not fetched. The page waits for its own
	// storage even though Options.Wait is tiny.
	a := storage.Appearance{LogoFileID: 7, LogoURL: host.URL + "/logo.png"}
	l := s.Look(one, a)
	if want := endpoint.Assets + endpoint.AssetName("logo-", logo, ""); l.LogoPath != want {
		t.Fatalf("logo path %q, want %q", l.LogoPath, want)
	}
	resp := get(t, s, l.LogoPath, nil)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/png" || !bytes.Equal(body(t, resp), logo) {
		t.Errorf("logo answer %d %v", resp.StatusCode, resp.Header)
	}
	if n := host.requests.Load(); n != 0 {
		t.Errorf("the URL was fetched %d times beside the uploaded file", n)
	}
	if s.Look(one, a) != l || reads.Load() != 1 {
		t.Errorf("the next page read the file again (%d reads)", reads.Load())
	}

	// The same id at another school is that school's question, not the cache's answer.
	if l := s.Look(two, a); l.LogoPath != "" {
		t.Errorf("school 2 shows school 1's file: %+v", l)
	}
	if l := s.Look(t.Context(), a); l.LogoPath != "" {
		t.Errorf("no school, yet a logo: %+v", l)
	}
	for _, id := range []int64{8, 9, 10} {
		if l := s.Look(one, storage.Appearance{LogoFileID: id}); l.LogoPath != "" {
			t.Errorf("file %d shown as a logo: %+v", id, l)
		}
	}

	// A replica that did not draw the page reads the file from the school's appearance.
	other := New(Options{LogoFile: read})
	current := func(context.Context) (storage.Appearance, error) { return a, nil }
	rec := httptest.NewRecorder()
	other.Handler(current).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, l.LogoPath, nil).WithContext(one))
	if rec.Code != 200 || !bytes.Equal(rec.Body.Bytes(), logo) {
		t.Errorf("logo at the other replica: %d", rec.Code)
	}

	// Without a reader, an uploaded logo is no logo.
	if l := New(Options{}).Look(one, storage.Appearance{LogoFileID: 7}); l.LogoPath != "" {
		t.Errorf("no reader, yet a logo: %+v", l)
	}
}
