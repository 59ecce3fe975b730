package edge

import (
	"errors"
	"net/http"
	"net/netip"
	"strings"
	"testing"
)

// trustedNets are the proxies of these tests: 10.0.0.0/8 and 2001:db8:ffff::/48.
func trustedNets(a netip.Addr) bool {
	return netip.MustParsePrefix("10.0.0.0/8").Contains(a) || netip.MustParsePrefix("2001:db8:ffff::/48").Contains(a)
}

var peer = netip.MustParseAddr("10.0.0.1")

// hdr builds a header from name, value pairs; a name given twice makes two lines.
func hdr(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Add(kv[i], kv[i+1])
	}
	return h
}

// TestFromProxies is the proxy rule on the chains a deployment meets. The peer (10.0.0.1) is a
// trusted proxy in every case; 10.0.0.0/8 are the trusted proxies, 198.51.100.1 and evil.example
// are what a client wrote itself, 203.0.113.9 is the client as the outermost proxy saw it.
func TestFromProxies(t *testing.T) {
	const (
		xff, xfp, xfh, fwd = "X-Forwarded-For", "X-Forwarded-Proto", "X-Forwarded-Host", "Forwarded"
		school             = "school.example"
		client             = "203.0.113.9"
	)
	for _, tc := range []struct {
		name              string
		h                 http.Header
		addr, proto, host string
		wantErr           bool
	}{
		{name: "no headers: the peer, nothing said", h: hdr(), addr: "10.0.0.1"},
		{name: "replacing proxy", h: hdr(xff, client, xfp, "https", xfh, school), addr: client, proto: "https", host: school},
		{name: "appending proxy after client-supplied values",
			h:    hdr(xff, "198.51.100.1, "+client, xfp, "http, https", xfh, "evil.example, "+school),
			addr: client, proto: "https", host: school},
		{name: "appending proxy, client wrote a trusted address",
			h:    hdr(xff, "10.0.0.7, "+client, xfp, "http,https", xfh, "evil.example,"+school),
			addr: client, proto: "https", host: school},
		{name: "replacing proxy, client values on the left are gone",
			h:    hdr(xff, "198.51.100.1, "+client, xfp, "https", xfh, school),
			addr: client, proto: "https", host: school},
		{name: "two trusted proxies, both appending",
			h:    hdr(xff, "198.51.100.1, "+client+", 10.0.0.2", xfp, "http, https, http", xfh, "evil.example, "+school+", internal:8080"),
			addr: client, proto: "https", host: school},
		{name: "two trusted proxies, the inner one passes proto and host through",
			h:    hdr(xff, client+", 10.0.0.2", xfp, "https", xfh, school),
			addr: client, proto: "https", host: school},
		{name: "multiple header lines are one list",
			h:    hdr(xff, "198.51.100.1", xff, client, xfp, "http", xfp, "https", xfh, "evil.example", xfh, school),
			addr: client, proto: "https", host: school},
		{name: "every hop trusted: the leftmost is the client",
			h: hdr(xff, "10.0.0.3, 10.0.0.2", xfp, "https"), addr: "10.0.0.3", proto: "https"},
		{name: "unknown hop: the proxy that reported it",
			h: hdr(xff, "198.51.100.1, unknown", xfh, "evil.example, "+school), addr: "10.0.0.1", host: school},
		{name: "address with a port", h: hdr(xff, client+":4711"), addr: client},
		{name: "IPv6, bare and bracketed with a port",
			h: hdr(xff, "2001:db8::7, [2001:db8::9]:4711, 2001:db8:ffff::2"), addr: "2001:db8::9"},
		{name: "IPv4-mapped IPv6 is IPv4", h: hdr(xff, "::ffff:"+client), addr: client},
		{name: "proto only", h: hdr(xfp, "HTTPS"), addr: "10.0.0.1", proto: "https"},
		{name: "client-written junk left of the hop is not read",
			h: hdr(xff, "x y z, "+client, xfp, "gopher, https", xfh, "a/b@c, "+school), addr: client, proto: "https", host: school},
		{name: "unknown proto from the proxy", h: hdr(xff, client, xfp, "gopher"), wantErr: true},
		{name: "host that is no host", h: hdr(xff, client, xfh, "evil.example/path"), wantErr: true},

		{name: "Forwarded", h: hdr(fwd, "for="+client+";proto=https;host="+school), addr: client, proto: "https", host: school},
		{name: "Forwarded appended after the client's element",
			h:    hdr(fwd, "for=198.51.100.1;host=evil.example;proto=http, for="+client+";host="+school+";proto=https"),
			addr: client, proto: "https", host: school},
		{name: "Forwarded appended as a second line",
			h:    hdr(fwd, `for=198.51.100.1;host=evil.example`, fwd, "for="+client+";host="+school+";proto=https"),
			addr: client, proto: "https", host: school},
		{name: "Forwarded quoted values, IPv6 in brackets with a port",
			h:    hdr(fwd, `for="[2001:db8:cafe::17]:4711";proto="https";host="`+school+`"`),
			addr: "2001:db8:cafe::17", proto: "https", host: school},
		{name: "Forwarded quoted IPv4 with a port", h: hdr(fwd, `for="`+client+`:47011"`), addr: client},
		{name: "Forwarded parameter names ignore case",
			h: hdr(fwd, "For="+client+";PROTO=HTTPS;Host="+school), addr: client, proto: "https", host: school},
		{name: "Forwarded chain of two trusted proxies",
			h:    hdr(fwd, "for="+client+";proto=https;host="+school+", for=10.0.0.2;proto=http;host=\"internal:8080\""),
			addr: client, proto: "https", host: school},
		{name: "Forwarded: a scheme the hop left out comes from the next trusted proxy",
			h:    hdr(fwd, "for=198.51.100.1;proto=http, for="+client+";host="+school+", for=10.0.0.2;proto=https"),
			addr: client, proto: "https", host: school},
		{name: "Forwarded obfuscated node",
			h: hdr(fwd, "for=_hidden;proto=https;host="+school), addr: "10.0.0.1", proto: "https", host: school},
		{name: "Forwarded unknown node behind a second proxy",
			h: hdr(fwd, "for=unknown;proto=https;host="+school+", for=10.0.0.2"), addr: "10.0.0.2", proto: "https", host: school},
		{name: "Forwarded by= and extensions ignored, quoted comma kept in its element",
			h:    hdr(fwd, `for=198.51.100.1;ext="a,\"b";host=evil.example, for=`+client+`;by=10.0.0.1;proto=https;host=`+school),
			addr: client, proto: "https", host: school},
		{name: "Forwarded empty elements and spaces around separators",
			h: hdr(fwd, ", for="+client+" ; proto=https ,"), addr: client, proto: "https"},

		{name: "both headers agreeing",
			h:    hdr(fwd, "for="+client+";proto=https;host="+school, xff, client, xfp, "https", xfh, school),
			addr: client, proto: "https", host: school},
		{name: "X-Forwarded proxy passing the client's Forwarded through",
			h: hdr(fwd, "for=198.51.100.1;host=evil.example", xff, client), wantErr: true},
		{name: "Forwarded proxy passing the client's X-Forwarded-Host through",
			h: hdr(fwd, "for="+client, xfh, "evil.example"), wantErr: true},

		{name: "Forwarded unterminated quote", h: hdr(fwd, `for="198.51.100.1, for=`+client), wantErr: true},
		{name: "Forwarded parameter twice", h: hdr(fwd, "for="+client+";for=198.51.100.1"), wantErr: true},
		{name: "Forwarded unquoted IPv6", h: hdr(fwd, "for=2001:db8::1"), wantErr: true},
		{name: "Forwarded empty value", h: hdr(fwd, "for="), wantErr: true},
		{name: "Forwarded pair without =", h: hdr(fwd, "for"), wantErr: true},
		{name: "Forwarded bad escape", h: hdr(fwd, "for=\"a\\\x01\""), wantErr: true},
		{name: "Forwarded unknown proto", h: hdr(fwd, "for="+client+";proto=ftp"), wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := FromProxies(tc.h, peer, trustedNets)
			if tc.wantErr {
				if !errors.Is(err, ErrForwarding) {
					t.Fatalf("got %+v, %v; want ErrForwarding", got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := Forwarding{ClientAddr: netip.MustParseAddr(tc.addr), Proto: tc.proto, Host: tc.host}
			if got != want {
				t.Errorf("got %+v, want %+v", got, want)
			}
		})
	}
}

func TestParseForwarded(t *testing.T) {
	got, err := ParseForwarded([]string{`for=192.0.2.43, for="[2001:db8:cafe::17]";proto=http;by=203.0.113.43`, `host="a\"b"`})
	if err != nil {
		t.Fatal(err)
	}
	want := []ForwardedElement{{For: "192.0.2.43"}, {For: "[2001:db8:cafe::17]", Proto: "http"}, {Host: `a"b`}}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("element %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

// quote writes v as a quoted-string.
func quote(v string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v) + `"`
}

// FuzzParseForwarded: any input either fails with ErrForwarding or gives elements that, written
// back as quoted strings, parse to the same elements.
func FuzzParseForwarded(f *testing.F) {
	for _, s := range []string{
		"for=192.0.2.43", `for="[2001:db8:cafe::17]:4711";proto=https;host="a.example"`,
		"for=_hidden, for=unknown;by=10.0.0.1", `for="a,\"b"`, `for="unterminated`, "for=1;for=2", ";;,,", "=x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		elems, err := ParseForwarded([]string{line})
		if err != nil {
			if !errors.Is(err, ErrForwarding) {
				t.Fatalf("error %v is not ErrForwarding", err)
			}
			return
		}
		var parts []string
		for _, e := range elems {
			var pairs []string
			for name, v := range map[string]string{"for": e.For, "proto": e.Proto, "host": e.Host} {
				if v != "" && !strings.ContainsAny(v, "\x00\r\n\x7f") && validQuotable(v) {
					pairs = append(pairs, name+"="+quote(v))
				}
			}
			if len(pairs) == 0 {
				return // an element with only other parameters (or empty values) cannot be written back
			}
			parts = append(parts, strings.Join(pairs, ";"))
		}
		again, err := ParseForwarded([]string{strings.Join(parts, ", ")})
		if err != nil || len(again) != len(elems) {
			t.Fatalf("%q parsed to %+v; written back it gives %+v, %v", line, elems, again, err)
		}
	})
}

func validQuotable(v string) bool {
	for i := 0; i < len(v); i++ {
		if !qdtext(v[i]) && v[i] != '"' && v[i] != '\\' {
			return false
		}
	}
	return true
}

// FuzzClientCannotChoose: behind a trusted proxy that appends to whatever X-Forwarded-* or
// Forwarded the client sent, the proxy's own client address, scheme and host are taken,
// whatever the client wrote; at worst (a Forwarded line the client broke) the request is
// refused.
func FuzzClientCannotChoose(f *testing.F) {
	f.Add("198.51.100.1", "http", "evil.example", `for=198.51.100.1;host=evil.example`)
	f.Add("10.0.0.2, 10.0.0.3", "https,", ",evil.example,", `for="10.0.0.2"`)
	f.Add("", "", "", "")
	f.Fuzz(func(t *testing.T, clientXFF, clientXFP, clientXFH, clientFwd string) {
		want := Forwarding{ClientAddr: netip.MustParseAddr("203.0.113.9"), Proto: "https", Host: "school.example"}
		appendTo := func(v, add string) string {
			if v == "" {
				return add
			}
			return v + ", " + add
		}
		// An X-Forwarded proxy appending on the same line.
		h := http.Header{
			"X-Forwarded-For":   {appendTo(clientXFF, "203.0.113.9")},
			"X-Forwarded-Proto": {appendTo(clientXFP, "https")},
			"X-Forwarded-Host":  {appendTo(clientXFH, "school.example")},
		}
		if got, err := FromProxies(h, peer, trustedNets); err != nil || got != want {
			t.Fatalf("X-Forwarded %q %q %q: got %+v, %v", clientXFF, clientXFP, clientXFH, got, err)
		}
		// A Forwarded proxy appending a line.
		h = http.Header{"Forwarded": {clientFwd, "for=203.0.113.9;proto=https;host=school.example"}}
		if clientFwd == "" {
			h["Forwarded"] = h["Forwarded"][1:]
		}
		got, err := FromProxies(h, peer, trustedNets)
		if err != nil {
			if !errors.Is(err, ErrForwarding) {
				t.Fatalf("error %v is not ErrForwarding", err)
			}
			return
		}
		if got != want {
			t.Fatalf("Forwarded %q: got %+v", clientFwd, got)
		}
	})
}

// FuzzFromProxies: whatever the four headers hold, FromProxies either refuses with
// ErrForwarding or answers a valid client address, a scheme of http, https or none, and a host
// that is a Host header value.
func FuzzFromProxies(f *testing.F) {
	f.Add("for=203.0.113.9;proto=https;host=a.example", "203.0.113.9", "https", "a.example")
	f.Add(`for="[2001:db8::1]:80", for=10.0.0.2`, "", "", "")
	f.Add("", "10.0.0.3, unknown", "http,https", ", ,")
	f.Fuzz(func(t *testing.T, fwd, xff, xfp, xfh string) {
		h := http.Header{}
		for name, v := range map[string]string{"Forwarded": fwd, "X-Forwarded-For": xff, "X-Forwarded-Proto": xfp, "X-Forwarded-Host": xfh} {
			if v != "" {
				h[name] = strings.Split(v, "\n")
			}
		}
		got, err := FromProxies(h, peer, trustedNets)
		if err != nil {
			if !errors.Is(err, ErrForwarding) {
				t.Fatalf("error %v is not ErrForwarding", err)
			}
			return
		}
		if !got.ClientAddr.IsValid() || got.ClientAddr.Zone() != "" || got.ClientAddr.Is4In6() {
			t.Fatalf("client address %v", got.ClientAddr)
		}
		if got.Proto != "" && got.Proto != "http" && got.Proto != "https" {
			t.Fatalf("proto %q", got.Proto)
		}
		if got.Host != "" && checkHostOK(got.Host) != nil {
			t.Fatalf("host %q", got.Host)
		}
	})
}

func checkHostOK(h string) error {
	_, err := checkHost(h)
	return err
}
