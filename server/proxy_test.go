package server

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/discovery"
	"github.com/proctorhq/proctor/edge"
)

// seen is what the request-info middleware decided, as an echo handler behind it reports it.
type seen struct {
	Addr   string `json:"addr"`
	Secure bool   `json:"secure"`
	Host   string `json:"host"`
}

// echoInfo serves the real request-info and school middleware of a server trusting trusted, for
// schools at school.example and origin.internal, with a handler that reports the client
// address, scheme and host chosen.
func echoInfo(t *testing.T, trusted ...string) *httptest.Server {
	t.Helper()
	reg := registryOf(t,
		config.School{SchoolID: 1, Subdomain: "s0", Name: "school.example", BaseURL: "https://school.example"},
		config.School{SchoolID: 2, Subdomain: "s1", Name: "origin.internal", BaseURL: "https://origin.internal"},
	)
	s := &Server{log: slog.New(slog.DiscardHandler), deps: Deps{Schools: reg}}
	s.trusted, _ = config.ParseTrustedProxies(trusted)
	srv := httptest.NewServer(s.requestInfo(s.resolveSchool(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info := edge.FromContext(r.Context())
		_ = json.NewEncoder(w).Encode(seen{Addr: info.ClientAddr.String(), Secure: info.Secure, Host: r.Host})
	}))))
	t.Cleanup(srv.Close)
	return srv
}

// TestProxyChains: what the edge believes of a request, for the proxy chains a deployment
// meets. The test client is the peer, 127.0.0.1; "trusted" servers trust it and 10.0.0.0/8;
// 198.51.100.1 and evil.example are what a client wrote itself, 203.0.113.9 is the client as
// the outermost trusted proxy saw it, school.example the host it asked for.
func TestProxyChains(t *testing.T) {
	trusted := echoInfo(t, "127.0.0.1", "10.0.0.0/8")
	untrusted := echoInfo(t, "10.0.0.0/8")
	const (
		xff, xfp, xfh, fwd = "X-Forwarded-For", "X-Forwarded-Proto", "X-Forwarded-Host", "Forwarded"
		client, school     = "203.0.113.9", "school.example"
	)
	for _, tc := range []struct {
		name   string
		srv    *httptest.Server
		header [][2]string // lines, in order
		want   seen        // Host "" means the request's own Host
		status int         // 200 unless set
	}{
		{name: "untrusted peer: every forwarding header ignored", srv: untrusted,
			header: [][2]string{{xff, client}, {xfp, "https"}, {xfh, school}, {fwd, "for=" + client + ";proto=https;host=" + school}},
			want:   seen{Addr: "127.0.0.1"}},
		{name: "replacing proxy", srv: trusted,
			header: [][2]string{{xff, client}, {xfp, "https"}, {xfh, school}},
			want:   seen{Addr: client, Secure: true, Host: school}},
		{name: "one trusted proxy appending to client-supplied headers", srv: trusted,
			header: [][2]string{{xff, "198.51.100.1, " + client}, {xfp, "https, http"}, {xfh, "evil.example, " + school}},
			want:   seen{Addr: client, Host: school}},
		{name: "chain of two trusted proxies, both appending", srv: trusted,
			header: [][2]string{{xff, "198.51.100.1, " + client + ", 10.0.0.2"}, {xfp, "http, https, http"}, {xfh, "evil.example, " + school + ", internal:8080"}},
			want:   seen{Addr: client, Secure: true, Host: school}},
		{name: "chain of two, the inner passing proto and host through", srv: trusted,
			header: [][2]string{{xff, client + ", 10.0.0.2"}, {xfp, "https"}, {xfh, school}},
			want:   seen{Addr: client, Secure: true, Host: school}},
		{name: "multiple header lines", srv: trusted,
			header: [][2]string{{xff, "198.51.100.1"}, {xff, client}, {xfh, "evil.example"}, {xfh, school}, {xfp, "http"}, {xfp, "https"}},
			want:   seen{Addr: client, Secure: true, Host: school}},
		{name: "Forwarded appended after the client's element, quoted values", srv: trusted,
			header: [][2]string{{fwd, `for="198.51.100.1";host="evil.example";proto=https, for="` + client + `:4711";proto=http;host="` + school + `"`}},
			want:   seen{Addr: client, Host: school}},
		{name: "Forwarded with IPv6 in brackets, chain of two", srv: trusted,
			header: [][2]string{{fwd, `for="[2001:db8:cafe::17]:4711";proto=https;host=` + school + `, for=10.0.0.2;proto=http`}},
			want:   seen{Addr: "2001:db8:cafe::17", Secure: true, Host: school}},
		{name: "Forwarded obfuscated client behind a second proxy", srv: trusted,
			header: [][2]string{{fwd, `for=_x7dd2;proto=https;host=` + school + `, for=10.0.0.2`}},
			want:   seen{Addr: "10.0.0.2", Secure: true, Host: school}},
		{name: "Forwarded unknown client", srv: trusted,
			header: [][2]string{{fwd, `for=unknown;proto=https`}},
			want:   seen{Addr: "127.0.0.1", Secure: true}},
		{name: "Forwarded and X-Forwarded agreeing", srv: trusted,
			header: [][2]string{{fwd, "for=" + client + ";proto=https;host=" + school}, {xff, client}, {xfp, "https"}, {xfh, school}},
			want:   seen{Addr: client, Secure: true, Host: school}},
		{name: "Forwarded and X-Forwarded disagreeing", srv: trusted,
			header: [][2]string{{fwd, "for=198.51.100.1;host=evil.example"}, {xff, client}}, status: http.StatusBadRequest},
		{name: "malformed Forwarded", srv: trusted,
			header: [][2]string{{fwd, `for="198.51.100.1, for=` + client}}, status: http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, tc.srv.URL+"/", nil)
			req.Host = "origin.internal"
			for _, kv := range tc.header {
				req.Header.Add(kv[0], kv[1])
			}
			resp, err := tc.srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			want := tc.status
			if want == 0 {
				want = http.StatusOK
			}
			if resp.StatusCode != want {
				t.Fatalf("status %d, want %d", resp.StatusCode, want)
			}
			if want != http.StatusOK {
				if body := decode[edge.ErrorBody](t, resp); body.Error != "invalid_request" {
					t.Errorf("error body %+v", body)
				}
				return
			}
			if tc.want.Host == "" {
				tc.want.Host = "origin.internal"
			}
			if got := decode[seen](t, resp); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// proxyKind is how a test proxy treats the forwarding headers a client sent.
type proxyKind int

const (
	appendXForwarded  proxyKind = iota // appends to X-Forwarded-*, passes Forwarded through
	appendForwarded                    // appends an element to Forwarded, passes X-Forwarded-* through
	replaceXForwarded                  // sets X-Forwarded-* afresh, drops Forwarded
)

// loopback returns a dialer whose connections come from ip (any 127.0.0.0/8 address is the
// loopback interface's on Linux), so that a test can tell a client from a proxy by address.
func loopback(t *testing.T, ip string) *net.Dialer {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := d.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Skipf("cannot dial from %s on this system: %v", ip, err)
	}
	c.Close()
	return d
}

// newProxy starts a reverse proxy in front of target that keeps the Host header, dials from
// fromIP and writes the forwarding headers as kind says.
func newProxy(t *testing.T, target string, kind proxyKind, fromIP string) *httptest.Server {
	t.Helper()
	u, _ := url.Parse(target)
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			// Rewrite's caller has removed Forwarded and X-Forwarded-* from Out; a proxy that
			// appends starts from what came in.
			pr.SetURL(u)
			pr.Out.Host = pr.In.Host
			ip, _, _ := net.SplitHostPort(pr.In.RemoteAddr)
			add := func(name, v string) {
				if in := pr.In.Header.Values(name); len(in) > 0 {
					v = strings.Join(in, ", ") + ", " + v
				}
				pr.Out.Header.Set(name, v)
			}
			switch kind {
			case appendXForwarded:
				add("X-Forwarded-For", ip)
				add("X-Forwarded-Proto", "http")
				add("X-Forwarded-Host", pr.In.Host)
				pr.Out.Header["Forwarded"] = pr.In.Header["Forwarded"]
			case appendForwarded:
				pr.Out.Header["Forwarded"] = append(pr.In.Header.Values("Forwarded"), "for="+ip+";proto=http;host=\""+pr.In.Host+"\"")
				for _, h := range []string{"X-Forwarded-For", "X-Forwarded-Proto", "X-Forwarded-Host"} {
					pr.Out.Header[h] = pr.In.Header[h]
				}
			case replaceXForwarded:
				pr.Out.Header.Set("X-Forwarded-For", ip)
				pr.Out.Header.Set("X-Forwarded-Proto", "http")
				pr.Out.Header.Set("X-Forwarded-Host", pr.In.Host)
			}
		},
		Transport: &http.Transport{DialContext: loopback(t, fromIP).DialContext},
	}
	srv := httptest.NewServer(rp)
	t.Cleanup(srv.Close)
	return srv
}

// TestClientCannotChooseTheSchool: behind trusted proxies that append to (or replace) what the
// client sent, X-Forwarded-Host and Forwarded host= written by the client never pick the school.
// Real proxies on loopback: the client connects from 127.0.0.3, the proxies from 127.0.0.2 and
// 127.0.0.4, and only the proxies are trusted. The client asks for school A (Northwind,
// http://127.0.0.1:8080) and names school B (Lumen, https://lumen.example) in every header.
func TestClientCannotChooseTheSchool(t *testing.T) {
	f := newFixture(t, func(s *config.Server) { s.TrustedProxies = []string{"127.0.0.2", "127.0.0.4"} })
	clientDialer := loopback(t, "127.0.0.3")
	client := &http.Client{Transport: &http.Transport{DialContext: clientDialer.DialContext}}
	t.Cleanup(client.CloseIdleConnections)

	outer := newProxy(t, f.public.URL, appendXForwarded, "127.0.0.2")
	inner := newProxy(t, f.public.URL, appendXForwarded, "127.0.0.4")
	chain := newProxy(t, inner.URL, appendXForwarded, "127.0.0.2") // client -> chain -> inner -> Proctor
	for _, p := range []struct {
		name, entry string
		// passes is the header family the proxy passes through untouched, when the client's
		// value there contradicts what the proxy wrote in the other: the request is refused.
		passes string
	}{
		{"appending X-Forwarded proxy", outer.URL, "Forwarded"},
		{"appending Forwarded proxy", newProxy(t, f.public.URL, appendForwarded, "127.0.0.2").URL, "X-Forwarded-Host"},
		{"replacing proxy", newProxy(t, f.public.URL, replaceXForwarded, "127.0.0.2").URL, ""},
		{"chain of two trusted proxies", chain.URL, "Forwarded"},
	} {
		for _, spoof := range []http.Header{
			{"X-Forwarded-Host": {"lumen.example"}, "X-Forwarded-Proto": {"https"}, "X-Forwarded-For": {"127.0.0.2"}},
			{"Forwarded": {`for=127.0.0.2;host=lumen.example;proto=https`}},
		} {
			req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, p.entry+"/.well-known/openid-configuration", nil)
			req.Host = "127.0.0.1:8080"
			for k, v := range spoof {
				req.Header[k] = v
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			_, refusable := spoof[p.passes]
			switch {
			case resp.StatusCode == http.StatusOK && !refusable:
				if md := decode[discovery.ServerMetadata](t, resp); md.Issuer != f.a.Origin {
					t.Errorf("%s, client sent %v: served the discovery of %s", p.name, spoof, md.Issuer)
				}
			case resp.StatusCode == http.StatusBadRequest && refusable:
			default:
				t.Errorf("%s, client sent %v: status %d", p.name, spoof, resp.StatusCode)
			}
		}
	}
}

// TestHTTPSSchoolOverHTTP: school B (https://lumen.example) reached over plain http, directly or
// through a trusted proxy that says the client used http, serves nothing: pages and documents
// redirect to the same path and query on the school's own origin, the API and OAuth endpoints
// answer 400 invalid_request in their own error shape, form posts 400. Over https (the TLS
// listener, or a trusted proxy saying https) the same requests are served.
func TestHTTPSSchoolOverHTTP(t *testing.T) {
	f := newFixture(t, func(s *config.Server) { s.TrustedProxies = []string{"127.0.0.1"} })
	type via struct {
		name       string
		srv        *httptest.Server
		host       string
		header     http.Header
		secure     bool
		wantOrigin string
	}
	vias := []via{
		{name: "plain http", srv: f.public, host: "lumen.example"},
		{name: "plain http, default port named", srv: f.public, host: "lumen.example:80"},
		{name: "trusted proxy saying http", srv: f.tls, host: "internal:8443",
			header: http.Header{"X-Forwarded-Proto": {"http"}, "X-Forwarded-Host": {"lumen.example"}, "X-Forwarded-For": {"203.0.113.9"}}},
		{name: "trusted proxy saying http in Forwarded", srv: f.public, host: "lumen.example",
			header: http.Header{"Forwarded": {`for=203.0.113.9;proto=http;host="LUMEN.example:443"`}}},
		{name: "https", srv: f.tls, host: "lumen.example", secure: true},
		{name: "trusted proxy saying https", srv: f.public, host: "internal:8080", secure: true,
			header: http.Header{"X-Forwarded-Proto": {"https"}, "X-Forwarded-Host": {"lumen.example"}}},
	}
	for _, v := range vias {
		t.Run(v.name, func(t *testing.T) {
			// Pages and documents: a redirect to the school's own https origin.
			for _, path := range []string{
				"/login?return_to=%2Foauth%2Fauthorize%3Fclient_id%3Dx",
				"/oauth/authorize?response_type=code&client_id=x&state=s%20t",
				"/.well-known/openid-configuration",
				"//evil.example/x?y=1",
			} {
				resp := f.send(t, v.srv, http.MethodGet, v.host, path, v.header)
				if v.secure {
					// (the router itself redirects "//evil.example/x" to its clean path, relative)
					if strings.HasPrefix(resp.Header.Get("Location"), "https:") {
						t.Errorf("GET %s over https: redirected to %s", path, resp.Header.Get("Location"))
					}
					continue
				}
				if resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != "https://lumen.example"+path {
					t.Errorf("GET %s: %d, Location %q; want 301 to https://lumen.example%s", path, resp.StatusCode, resp.Header.Get("Location"), path)
				}
			}
			if resp := f.send(t, v.srv, http.MethodHead, v.host, "/login", v.header); !v.secure && resp.StatusCode != http.StatusMovedPermanently {
				t.Errorf("HEAD /login: %d", resp.StatusCode)
			}

			// The API and OAuth endpoints: an error in their shape, never served.
			for _, tc := range []struct {
				method, path string
				challenge    bool // an RFC 6750 Bearer challenge rather than an RFC 6749 body
			}{
				{http.MethodPost, "/api/oauth/token", false},
				{http.MethodPost, "/api/oauth/revoke", false},
				{http.MethodPost, "/api/oauth/register", false},
				{http.MethodGet, "/api/oauth/userinfo", true},
				{http.MethodGet, "/api/v1/courses", true},
				{http.MethodPost, "/member/graphql", true},
				{http.MethodPost, "/mcp", true},
			} {
				resp := f.send(t, v.srv, tc.method, v.host, tc.path, v.header)
				if v.secure {
					if resp.StatusCode == http.StatusBadRequest && strings.Contains(resp.Header.Get("WWW-Authenticate"), "invalid_request") {
						t.Errorf("%s %s over https: refused as http", tc.method, tc.path)
					}
					continue
				}
				body := decode[edge.ErrorBody](t, resp)
				challenge := resp.Header.Get("WWW-Authenticate")
				if resp.StatusCode != http.StatusBadRequest || body.Error != "invalid_request" || resp.Header.Get("Location") != "" {
					t.Errorf("%s %s: %d %+v; want 400 invalid_request", tc.method, tc.path, resp.StatusCode, body)
				}
				if tc.challenge != strings.HasPrefix(challenge, `Bearer error="invalid_request"`) {
					t.Errorf("%s %s: WWW-Authenticate %q", tc.method, tc.path, challenge)
				}
			}
			// A form post is refused, not redirected.
			if resp := f.send(t, v.srv, http.MethodPost, v.host, "/login", v.header); !v.secure &&
				(resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Location") != "") {
				t.Errorf("POST /login: %d", resp.StatusCode)
			}
		})
	}
	// School A, whose base_url is http, is served over http as before.
	if resp := f.get(t, "127.0.0.1:8080", "/.well-known/openid-configuration", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("http school over http: %d", resp.StatusCode)
	}
}

// TestForwardingRefusalIsAnEdgeAnswer: a trusted proxy's unreadable forwarding headers are
// answered 400 by the whole public handler, with the security headers and the request id every
// answer carries, before any school is looked up.
func TestForwardingRefusalIsAnEdgeAnswer(t *testing.T) {
	f := newFixture(t, func(s *config.Server) { s.TrustedProxies = []string{"127.0.0.1"} })
	resp := f.get(t, "127.0.0.1:8080", "/.well-known/openid-configuration",
		http.Header{"Forwarded": {`for="203.0.113.9`}, "X-Request-Id": {"proxy-request-1"}})
	if resp.StatusCode != http.StatusBadRequest || decode[edge.ErrorBody](t, resp).Error != "invalid_request" {
		t.Fatalf("status %d", resp.StatusCode)
	}
	for k, want := range map[string]string{"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY", "X-Request-ID": "proxy-request-1"} {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
}
