package seal

import (
	"bytes"
	"encoding/hex"
	"errors"
	"testing"
)

// The vectors were sealed by the code this package replaced (mail's and keys' own copies of
// AES-GCM sealing) under testKey; databases hold bytes in this format. Each is school, label,
// plaintext and the sealed bytes, whose nonce is bytes 1 to 12.
var vectors = []struct {
	school int64
	label  string
	plain  string
	sealed string
}{
	{7, "label", "sealed at rest", "01a48ed247dbe5882e257968340a277ba55f3af730f08cfac9217031abc32fec1c5aa9ef7082baf7a59d7b"},
	{-1, "", "", "0132c1bfc525454add0cd8727430f8511d2b3b83e23a099678084fc7aa"},
}

// testKey is the bytes 0x00…0x1f.
func testKey() []byte {
	k := make([]byte, KeySize)
	for i := range k {
		k[i] = byte(i)
	}
	return k
}

func mustNew(t testing.TB, key []byte) *Sealer {
	t.Helper()
	s, err := New(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestVectors: the format has not changed by one byte. Stored bytes open, and sealing the same
// plaintext with the same nonce gives the same bytes.
func TestVectors(t *testing.T) {
	for _, v := range vectors {
		sealed := mustHex(t, v.sealed)
		s := mustNew(t, testKey())
		plain, err := s.Open(v.school, v.label, sealed)
		if err != nil {
			t.Fatalf("school %d, label %q: %v", v.school, v.label, err)
		}
		if string(plain) != v.plain {
			t.Fatalf("opened %q, want %q", plain, v.plain)
		}
		s.readNonce = func(b []byte) (int, error) { return copy(b, sealed[1:1+nonceSize]), nil }
		if got := s.Seal(v.school, v.label, []byte(v.plain)); !bytes.Equal(got, sealed) {
			t.Fatalf("sealed %x, want %s", got, v.sealed)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	s := mustNew(t, testKey())
	a := s.Seal(7, "kid-1", []byte("secret"))
	if a[0] != version || len(a) != 1+nonceSize+len("secret")+16 {
		t.Fatalf("sealed %x", a)
	}
	plain, err := mustNew(t, testKey()).Open(7, "kid-1", a)
	if err != nil || string(plain) != "secret" {
		t.Fatalf("opened %q, %v", plain, err)
	}
	// A fresh nonce each time: the same plaintext never seals to the same bytes.
	if b := s.Seal(7, "kid-1", []byte("secret")); bytes.Equal(a[1:1+nonceSize], b[1:1+nonceSize]) {
		t.Fatal("two sealings share a nonce")
	}
}

// TestOpenRefuses: another key, altered bytes, another school or label, or bytes that are no
// sealing at all are ErrOpen.
func TestOpenRefuses(t *testing.T) {
	s := mustNew(t, testKey())
	sealed := s.Seal(7, "kid-1", []byte("secret"))
	flip := func(i int) []byte {
		b := bytes.Clone(sealed)
		b[i] ^= 1
		return b
	}
	other := bytes.Repeat([]byte{9}, KeySize)
	cases := []struct {
		name   string
		key    []byte
		school int64
		label  string
		sealed []byte
	}{
		{"other key", other, 7, "kid-1", sealed},
		{"other school", nil, 8, "kid-1", sealed},
		{"other label", nil, 7, "kid-2", sealed},
		{"empty label", nil, 7, "", sealed},
		{"negative school", nil, -7, "kid-1", sealed},
		{"version", nil, 7, "kid-1", flip(0)},
		{"nonce", nil, 7, "kid-1", flip(1)},
		{"ciphertext", nil, 7, "kid-1", flip(1 + nonceSize)},
		{"tag", nil, 7, "kid-1", flip(len(sealed) - 1)},
		{"truncated", nil, 7, "kid-1", sealed[:len(sealed)-1]},
		{"extra byte", nil, 7, "kid-1", append(bytes.Clone(sealed), 0)},
		{"tag only", nil, 7, "kid-1", sealed[:1+nonceSize+16]},
		{"too short", nil, 7, "kid-1", sealed[:1+nonceSize+15]},
		{"version only", nil, 7, "kid-1", []byte{version}},
		{"empty", nil, 7, "kid-1", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			key := c.key
			if key == nil {
				key = testKey()
			}
			if _, err := mustNew(t, key).Open(c.school, c.label, c.sealed); !errors.Is(err, ErrOpen) {
				t.Fatalf("err = %v, want ErrOpen", err)
			}
		})
	}
}

func TestKeySize(t *testing.T) {
	for _, n := range []int{0, 16, 31, 33} {
		if _, err := New(make([]byte, n)); err == nil {
			t.Errorf("a %d-byte key was accepted", n)
		}
	}
}

// FuzzOpen: Open never panics, and whatever it accepts is a sealing under the key: sealing
// the plaintext again with the same nonce gives the same bytes.
func FuzzOpen(f *testing.F) {
	s := mustNew(f, testKey())
	for _, v := range vectors {
		f.Add(v.school, v.label, mustHex(f, v.sealed))
	}
	f.Add(int64(7), "kid-1", s.Seal(7, "kid-1", []byte("secret")))
	f.Add(int64(0), "", []byte{})
	f.Fuzz(func(t *testing.T, school int64, label string, sealed []byte) {
		plain, err := s.Open(school, label, sealed)
		if err != nil {
			if !errors.Is(err, ErrOpen) {
				t.Fatalf("err = %v, not ErrOpen", err)
			}
			return
		}
		again := mustNew(t, testKey())
		again.readNonce = func(b []byte) (int, error) { return copy(b, sealed[1:1+nonceSize]), nil }
		if got := again.Seal(school, label, plain); !bytes.Equal(got, sealed) {
			t.Fatalf("accepted %x, which is not the sealing %x", sealed, got)
		}
	})
}
