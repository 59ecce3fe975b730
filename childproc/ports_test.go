package childproc

import (
	"net"
	"testing"
)

// TestHoldDistinctUntilReleased: held addresses are distinct (which addresses chosen one after
// the other, each closed first, do not promise) and nobody else can listen on them until they
// are released; then the child can.
func TestHoldDistinctUntilReleased(t *testing.T) {
	p := NewPorts("127.0.0.1")
	addrs, err := p.Hold(16)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release(addrs...)
	if len(addrs) != 16 {
		t.Fatalf("Hold returned %d addresses, want 16", len(addrs))
	}
	seen := map[string]bool{}
	for _, a := range addrs {
		if seen[a] {
			t.Fatalf("Hold returned %s twice", a)
		}
		seen[a] = true
		if host, _, _ := net.SplitHostPort(a); host != "127.0.0.1" {
			t.Fatalf("%s is not on 127.0.0.1", a)
		}
	}
	if l, err := net.Listen("tcp", addrs[0]); err == nil {
		l.Close()
		t.Fatalf("%s could be listened on while held", addrs[0])
	}
	p.Release(addrs[0])
	l, err := net.Listen("tcp", addrs[0])
	if err != nil {
		t.Fatalf("%s after release: %v", addrs[0], err)
	}
	l.Close()
	// Released again, or never held: nothing happens.
	p.Release(addrs[0], "127.0.0.1:1")
}

// TestNeverTwice: once released or closed, an address is not handed out again by the same
// Ports, though the system would hand it out.
func TestNeverTwice(t *testing.T) {
	p := NewPorts("[127.0.0.1]")
	seen := map[string]bool{}
	for round := range 20 {
		addrs, err := p.Hold(2)
		if err != nil {
			t.Fatal(err)
		}
		l, err := p.Listen()
		if err != nil {
			t.Fatal(err)
		}
		addrs = append(addrs, l.Addr().String())
		l.Close()
		p.Release(addrs...)
		for _, a := range addrs {
			if seen[a] {
				t.Fatalf("round %d: %s handed out again", round, a)
			}
			seen[a] = true
		}
	}
}
