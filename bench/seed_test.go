package bench

import "testing"

// TestFreeAddrsDistinct: the server's public and internal listeners get different ports, which
// two addresses chosen one after the other, each released first, do not promise.
func TestFreeAddrsDistinct(t *testing.T) {
	addrs, err := freeAddrs("127.0.0.1", 16)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, a := range addrs {
		if seen[a] {
			t.Fatalf("freeAddrs returned %s twice: %v", a, addrs)
		}
		seen[a] = true
	}
	if len(addrs) != 16 {
		t.Fatalf("freeAddrs returned %d addresses, want 16", len(addrs))
	}
}
