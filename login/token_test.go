package login

import (
	"encoding/base64"
	"strings"
	"testing"
)

// FuzzWellFormedToken: the check that keeps junk tokens from the store accepts exactly the
// strings NewToken can make.
func FuzzWellFormedToken(f *testing.F) {
	for _, s := range []string{"", NewToken(), strings.Repeat("A", 43), strings.Repeat("A", 44), strings.Repeat("=", 43), "a+b/" + strings.Repeat("A", 39), "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !WellFormedToken(s) {
			return
		}
		b, err := base64.RawURLEncoding.DecodeString(s)
		if err != nil || len(b) != tokenBytes {
			t.Fatalf("%q accepted: %d bytes, %v", s, len(b), err)
		}
		if strings.ContainsAny(s, "+/=") {
			t.Fatalf("%q accepted", s)
		}
	})
}

func TestNewTokenIsWellFormedAndFresh(t *testing.T) {
	a, b := NewToken(), NewToken()
	if !WellFormedToken(a) || !WellFormedToken(b) || a == b {
		t.Fatalf("tokens %q %q", a, b)
	}
}
