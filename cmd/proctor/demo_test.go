package main

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/childproc"
	"github.com/proctorhq/proctor/seed/demo"
	"github.com/proctorhq/proctor/server/servertest"
	"github.com/proctorhq/proctor/server/servertest/schools"
)

// TestDemoOnATakenPort starts a second demo on a running demo's public, then internal port, and
// checks that it says which port is taken and what to do, prints no banner, and exits non-zero.
func TestDemoOnATakenPort(t *testing.T) {
	first := startDemo(t)
	for _, taken := range []struct{ addr, internal string }{
		{first.addr, "127.0.0.1:0"},
		{"127.0.0.1:0", first.internal},
	} {
		busy := taken.addr
		if busy == "127.0.0.1:0" {
			busy = taken.internal
		}
		_, port, _ := net.SplitHostPort(busy)
		code, out, stderr := runCmd(t, "", "demo", "--data-dir", t.TempDir(), "--addr", taken.addr, "--internal-addr", taken.internal)
		if code != exitFailure {
			t.Errorf("%s taken: exit %d, want %d", busy, code, exitFailure)
		}
		if !strings.Contains(stderr, "port "+port+" is already in use") || !strings.Contains(stderr, "make run PORT=") {
			t.Errorf("%s taken: stderr does not name port %s and the way out:\n%s", busy, port, stderr)
		}
		if strings.Contains(out, "is running") {
			t.Errorf("%s taken: the banner was printed before the failure:\n%s", busy, out)
		}
	}
}

// TestMakeRunPort checks that `make run PORT=...` hands the port to the demo, the internal
// listener on the next one.
func TestMakeRunPort(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	out, err := exec.Command("make", "-s", "-n", "-C", "../..", "run", "PORT=9090").CombinedOutput()
	if err != nil {
		t.Fatalf("make -n run: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "demo --addr 127.0.0.1:9090 --internal-addr 127.0.0.1:9091") {
		t.Errorf("make run PORT=9090 runs:\n%s", out)
	}
}

// runningDemo is a demo a test started: its banner and its two listeners' addresses.
type runningDemo struct{ banner, addr, internal string }

// startDemo runs the demo with a fresh data directory until the test ends, on loopback ports
// the system picks (port 0), and returns once it has printed its banner, which says the ports.
// With -short it skips the test instead.
func startDemo(t *testing.T) runningDemo {
	t.Helper()
	if testing.Short() {
		t.Skip("starts the demo")
	}
	ctx, cancel := context.WithCancel(context.Background())
	var out, logs schools.LogBuffer
	s := startServe(func() error { return runDemo(ctx, "127.0.0.1:0", "127.0.0.1:0", t.TempDir(), &out, &logs) })
	t.Cleanup(func() {
		cancel()
		if err := s.wait(); err != nil {
			t.Errorf("demo: %v\n%s", err, logs.String())
		}
	})
	switch err := poll(s.exited, func() bool { return strings.Contains(out.String(), "  database:") }); {
	case errors.Is(err, childproc.ErrExited):
		t.Fatalf("the demo stopped before its banner: %v\n%s", s.err, logs.String())
	case err != nil:
		t.Fatalf("no banner from the demo:\n%s", logs.String())
	}
	banner := out.String()
	origin := bannerField(t, banner, "issuer:     http://", "\n")
	internal := bannerField(t, banner, "internal:   http://", "/")
	return runningDemo{banner: banner, addr: origin, internal: internal}
}

var bannerURL = regexp.MustCompile(`https?://[^\s,()"]+`)

// TestDemoBannerShowsEverySurface reads the demo's banner and uses what it prints: every URL
// answers, and the operator client, approved by the school's owner with the printed
// authorization URL and PKCE verifier, gets a token with operator scopes that the operator REST
// API and the operator MCP tools accept.
func TestDemoBannerShowsEverySurface(t *testing.T) {
	d := startDemo(t)
	for _, want := range []string{"/auth.md", "/admin/members", "/admin/developers/oauth-applications",
		"http://" + d.internal + "/mail", "demo-northwind-operator", "demo-lumen-operator", "code_verifier is "} {
		if !strings.Contains(d.banner, want) {
			t.Errorf("the banner does not show %s:\n%s", want, d.banner)
		}
	}

	// Every URL printed answers: the redirect URI excepted (nothing is meant to listen there),
	// and the bare origins, which are identifiers (issuer, resource), not pages.
	plain := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	urls := bannerURL.FindAllString(d.banner, -1)
	if len(urls) < 20 {
		t.Fatalf("only %d URLs in the banner:\n%s", len(urls), d.banner)
	}
	for _, raw := range urls {
		raw = strings.TrimRight(raw, ".:")
		if strings.HasPrefix(raw, demoRedirectURI) {
			continue
		}
		u, err := url.Parse(raw)
		if err != nil {
			t.Errorf("%s: %v", raw, err)
			continue
		}
		if u.Path == "" {
			continue
		}
		host := u.Host
		u.Host = strings.Replace(u.Host, "localhost:", "127.0.0.1:", 1)
		req, _ := http.NewRequest(http.MethodGet, u.String(), nil)
		req.Host = host
		resp, err := plain.Do(req)
		if err != nil {
			t.Errorf("%s: %v", raw, err)
			continue
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusNotFound || resp.StatusCode >= 500 {
			t.Errorf("%s: %d", raw, resp.StatusCode)
		}
	}

	// The operator client, as the banner shows it.
	authURL := bannerLine(t, d.banner, "client:     demo-northwind-operator", "sign in:")
	verifier := bannerField(t, d.banner, "code_verifier is ", ".")
	tokenLine := bannerLine(t, d.banner, "client:     demo-northwind-operator", "token:")
	var owner demo.Account
	for _, acc := range demo.Accounts() {
		if acc.SchoolSubdomain == "northwind" && acc.Role == "owner" {
			owner = acc
		}
	}
	if !strings.Contains(d.banner, owner.Email) || !strings.Contains(d.banner, owner.Password) {
		t.Fatalf("the banner does not show the owner's account:\n%s", d.banner)
	}
	b := servertest.NewPages(t, nil)
	origin := "http://" + d.addr
	page := b.Get(origin + "/login")
	f, ok := page.FormWith("password")
	if !ok {
		t.Fatalf("no sign-in form: %d\n%s", page.Status, page.Body)
	}
	f.Values.Set("email", owner.Email)
	f.Values.Set("password", owner.Password)
	if r := b.Post(f.Action, f.Values); r.Status != http.StatusSeeOther {
		t.Fatalf("sign in as %s: %d\n%s", owner.Email, r.Status, r.Body)
	}
	page = b.Get(authURL)
	f, ok = page.FormWith("csrf_token")
	if page.Status != http.StatusOK || !ok {
		t.Fatalf("consent page: %d (Location %q)\n%s", page.Status, page.Header.Get("Location"), page.Body)
	}
	f.Values.Set("decision", "approve")
	answer := b.Post(f.Action, f.Values)
	loc, err := url.Parse(answer.Header.Get("Location"))
	if err != nil || loc.Query().Get("code") == "" {
		t.Fatalf("approve: %d, Location %q", answer.Status, answer.Header.Get("Location"))
	}

	// The token line: curl -s URL -d k=v ..., with CLIENT_ID and CODE to fill in.
	fields := strings.Fields(strings.TrimPrefix(tokenLine, "curl -s "))
	form := url.Values{}
	for i := 1; i+1 < len(fields); i += 2 {
		k, v, _ := strings.Cut(fields[i+1], "=")
		v = strings.NewReplacer("CLIENT_ID", "demo-northwind-operator", "CODE", loc.Query().Get("code")).Replace(v)
		form.Set(k, v)
	}
	if form.Get("code_verifier") != verifier {
		t.Errorf("the token line's verifier %q is not the banner's %q", form.Get("code_verifier"), verifier)
	}
	resp, err := http.PostForm(fields[0], form)
	if err != nil {
		t.Fatal(err)
	}
	var tok struct {
		AccessToken string `json:"access_token"`
		Scope       string `json:"scope"`
	}
	json.NewDecoder(resp.Body).Decode(&tok)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !slices.Contains(strings.Fields(tok.Scope), "courses:read") {
		t.Fatalf("token: %d, scope %q", resp.StatusCode, tok.Scope)
	}

	status, body := bearerCall(t, http.MethodGet, origin+"/api/v1/courses", tok.AccessToken, "")
	if status != http.StatusOK || !strings.Contains(body, `"items"`) {
		t.Errorf("GET /api/v1/courses: %d %s", status, body)
	}
	status, body = bearerCall(t, http.MethodPost, origin+"/mcp", tok.AccessToken,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"admin_list_courses","arguments":{}}}`)
	if status != http.StatusOK || !strings.Contains(body, `"result"`) || strings.Contains(body, `"isError":true`) {
		t.Errorf("MCP admin_list_courses: %d %s", status, body)
	}
}

// bannerLine returns what follows label on the first line with it after the line with after.
func bannerLine(t *testing.T, banner, after, label string) string {
	t.Helper()
	_, rest, ok := strings.Cut(banner, after)
	if ok {
		_, rest, ok = strings.Cut(rest, label)
	}
	line, _, _ := strings.Cut(rest, "\n")
	if !ok || strings.TrimSpace(line) == "" {
		t.Fatalf("no %q after %q in the banner:\n%s", label, after, banner)
	}
	return strings.TrimSpace(line)
}

// bannerField returns the text between prefix and the next end in the banner.
func bannerField(t *testing.T, banner, prefix, end string) string {
	t.Helper()
	_, rest, ok := strings.Cut(banner, prefix)
	v, _, ok2 := strings.Cut(rest, end)
	if !ok || !ok2 || v == "" {
		t.Fatalf("no %q in the banner:\n%s", prefix, banner)
	}
	return v
}

// bearerCall sends a JSON body (none when empty) with an access token, and returns the status
// and the body of the answer.
func bearerCall(t *testing.T, method, rawURL, token, body string) (int, string) {
	t.Helper()
	header := http.Header{}
	header.Set("Authorization", "Bearer "+token)
	if body != "" {
		header.Set("Content-Type", "application/json")
		header.Set("Accept", "application/json, text/event-stream")
		header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	code, answer, err := fetch(method, rawURL, "", header, body)
	if err != nil {
		t.Fatal(err)
	}
	return code, answer
}

// The demo's two schools look different on one listener: Northwind light, in English, with its
// blue; Lumen dark, in Traditional Chinese for a browser that asks for no language of ours,
// with its orange.
func TestDemoSchoolsLookDifferent(t *testing.T) {
	d := startDemo(t)
	_, port, _ := net.SplitHostPort(d.addr)
	themeAttr := regexp.MustCompile(`<html lang="([^"]+)" data-theme="([^"]+)">`)
	sheet := regexp.MustCompile(`<link rel="stylesheet" href="(/assets/look-[0-9a-f]+\.css)">`)
	for _, tc := range []struct{ host, lang, theme, brand string }{
		{"127.0.0.1:" + port, "en", "light", "--brand:#1d4ed8"},
		{"localhost:" + port, "zh-TW", "dark", "--brand-dark:#fb923c"},
	} {
		get := func(path string) string {
			code, body, err := fetch(http.MethodGet, "http://"+d.addr+path, tc.host, nil, "")
			if err != nil {
				t.Fatal(err)
			}
			if code != http.StatusOK {
				t.Fatalf("%s%s: %d", tc.host, path, code)
			}
			return body
		}
		page := get("/login")
		m := themeAttr.FindStringSubmatch(page)
		if m == nil || m[1] != tc.lang || m[2] != tc.theme {
			t.Errorf("%s: <html> says %v, want lang %s and theme %s", tc.host, m, tc.lang, tc.theme)
		}
		s := sheet.FindStringSubmatch(page)
		if s == nil {
			t.Errorf("%s: the sign-in page links no school stylesheet", tc.host)
			continue
		}
		if css := get(s[1]); !strings.Contains(css, tc.brand) {
			t.Errorf("%s: the school stylesheet lacks %s:\n%s", tc.host, tc.brand, css)
		}
	}
}
