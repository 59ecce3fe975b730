package bench

import (
	"net"
	"testing"
)

// TestHoldAddrsDistinct: the server's public and internal listeners get different ports, which
// two addresses chosen one after the other, each released first, do not promise; and the ports
// stay taken until the workspace releases them.
func TestHoldAddrsDistinct(t *testing.T) {
	ws := &workspace{}
	var err error
	if ws.held, err = holdAddrs("127.0.0.1", 16); err != nil {
		t.Fatal(err)
	}
	defer ws.release()
	if len(ws.held) != 16 {
		t.Fatalf("holdAddrs returned %d listeners, want 16", len(ws.held))
	}
	seen := map[string]bool{}
	for _, l := range ws.held {
		a := l.Addr().String()
		if seen[a] {
			t.Fatalf("holdAddrs returned %s twice", a)
		}
		seen[a] = true
	}
	// Held: nobody else can listen there.
	if l, err := net.Listen("tcp", ws.held[0].Addr().String()); err == nil {
		l.Close()
		t.Fatalf("%s could be listened on while held", ws.held[0].Addr())
	}
	// Released: the server can.
	addr := ws.held[0].Addr().String()
	ws.release()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("%s after release: %v", addr, err)
	}
	l.Close()
}
