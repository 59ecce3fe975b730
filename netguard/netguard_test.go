package netguard

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"testing"

	"github.com/proctorhq/proctor/server/servertest/schools"
)

func TestCheckAddr(t *testing.T) {
	for _, tc := range []struct {
		addr string
		// strict: refused by default; dev: refused even with private networks allowed.
		strict, dev bool
	}{
		{"93.184.215.14", false, false},
		{"8.8.8.8", false, false},
		{"2606:4700:4700::1111", false, false},
		{"64:ff9b::808:808", false, false}, // NAT64 of 8.8.8.8

		{"127.0.0.1", true, false},
		{"127.255.255.254", true, false},
		{"10.0.0.1", true, false},
		{"172.16.0.1", true, false},
		{"172.31.255.255", true, false},
		{"192.168.1.1", true, false},
		{"::1", true, false},
		{"fd00::1", true, false},
		{"fc00::1", true, false},
		{"::ffff:127.0.0.1", true, false},
		{"::ffff:10.0.0.1", true, false},
		{"64:ff9b::a00:1", true, false}, // NAT64 of 10.0.0.1

		{"169.254.169.254", true, true},
		{"::ffff:169.254.169.254", true, true},
		{"64:ff9b::a9fe:a9fe", true, true}, // NAT64 of 169.254.169.254
		{"100.64.0.1", true, true},
		{"100.127.255.255", true, true},
		{"0.0.0.0", true, true},
		{"0.1.2.3", true, true},
		{"255.255.255.255", true, true},
		{"240.0.0.1", true, true},
		{"224.0.0.1", true, true},
		{"239.255.255.250", true, true},
		{"192.0.0.8", true, true},
		{"192.0.2.1", true, true},
		{"198.18.0.1", true, true},
		{"198.19.255.255", true, true},
		{"198.51.100.1", true, true},
		{"203.0.113.1", true, true},
		{"::", true, true},
		{"fe80::1", true, true},
		{"fe80::1%eth0", true, true},
		{"ff02::1", true, true},
		{"2001:db8::1", true, true},
		{"2001::1", true, true}, // Teredo
		{"2002:a00:1::1", true, true},
		{"100::1", true, true},
	} {
		ip := netip.MustParseAddr(tc.addr)
		if err := CheckAddr(ip, false); (err != nil) != tc.strict || err != nil && !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("CheckAddr(%s, strict) = %v, want refused %v", tc.addr, err, tc.strict)
		}
		if err := CheckAddr(ip, true); (err != nil) != tc.dev {
			t.Errorf("CheckAddr(%s, dev) = %v, want refused %v", tc.addr, err, tc.dev)
		}
	}
	if err := CheckAddr(netip.Addr{}, true); err == nil {
		t.Error("the zero address was accepted")
	}
}

// TestGuard: the dialer refuses names and literals that resolve to special-use addresses
// without connecting, and connects to the checked address, never to the name.
func TestGuard(t *testing.T) {
	for _, tc := range []struct {
		answer   []string
		literal  string
		strictOK bool
		devOK    bool
	}{
		{answer: []string{"10.0.0.1"}, devOK: true},
		{answer: []string{"169.254.169.254"}},
		{answer: []string{"::1"}, devOK: true},
		{answer: []string{"::ffff:127.0.0.1"}, devOK: true},
		{answer: []string{"100.64.0.1"}},
		{answer: []string{"93.184.215.14", "10.0.0.1"}, devOK: true}, // one bad address spoils the name
		{answer: []string{"93.184.215.14"}, strictOK: true, devOK: true},
		{literal: "169.254.169.254"},
		{literal: "[::ffff:127.0.0.1]", devOK: true},
		{literal: "93.184.215.14", strictOK: true, devOK: true},
	} {
		for _, dev := range []bool{false, true} {
			var dialled []string
			g := New(schools.StaticResolver(tc.answer...), dev, &net.Dialer{}, func(_ context.Context, _, address string) (net.Conn, error) {
				dialled = append(dialled, address)
				return nil, errors.New("test: not connecting")
			})
			host := "client.example"
			if tc.literal != "" {
				host = tc.literal
			}
			_, err := g.DialContext(context.Background(), "tcp", host+":443")
			wantOK := tc.strictOK || dev && tc.devOK
			if wantOK {
				if len(dialled) == 0 {
					t.Errorf("%v %s dev=%v: nothing dialled (%v)", tc.answer, tc.literal, dev, err)
				}
				for _, a := range dialled {
					ap, perr := netip.ParseAddrPort(a)
					if perr != nil || ap.Port() != 443 {
						t.Errorf("dialled %q: want a checked ip:port, not a name", a)
					}
				}
				continue
			}
			if !errors.Is(err, ErrForbiddenAddress) || len(dialled) != 0 {
				t.Errorf("%v %s dev=%v: error %v, dialled %v; want refused before connecting", tc.answer, tc.literal, dev, err, dialled)
			}
		}
	}
	g := New(schools.StaticResolver("93.184.215.14"), false, &net.Dialer{}, nil)
	if _, err := g.DialContext(context.Background(), "udp", "client.example:443"); err == nil {
		t.Error("a udp dial was allowed")
	}
}

// TestControl: the socket-level check refuses a special-use address whatever led to it.
func TestControl(t *testing.T) {
	strict, dev := Control(false), Control(true)
	for addr, wantStrict := range map[string]bool{
		"10.0.0.1:443":             false,
		"169.254.169.254:80":       false,
		"[::1]:443":                false,
		"[::ffff:127.0.0.1]:443":   false,
		"100.64.0.1:443":           false,
		"93.184.215.14:443":        true,
		"[2606:4700::1111]:443":    true,
		"not-an-address:443":       false,
		"[fe80::1%eth0]:443":       false,
		"[64:ff9b::a9fe:a9fe]:443": false,
	} {
		if err := strict("tcp4", addr, nil); (err == nil) != wantStrict {
			t.Errorf("control(%s) = %v, want allowed %v", addr, err, wantStrict)
		}
	}
	if err := dev("tcp4", "127.0.0.1:443", nil); err != nil {
		t.Errorf("development control refused loopback: %v", err)
	}
	if err := dev("tcp4", "169.254.169.254:80", nil); err == nil {
		t.Error("development control allowed link-local")
	}
	// The real dialer runs the control: a loopback listener cannot be reached strictly.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	d := &net.Dialer{Control: strict}
	if c, err := d.DialContext(context.Background(), "tcp", ln.Addr().String()); err == nil {
		c.Close()
		t.Error("the control function did not stop a connection to 127.0.0.1")
	}
}
