package keys

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"testing"

	"github.com/proctorhq/proctor/config"
)

func testSecret(fill byte) config.Secret {
	return config.Secret(bytes.Repeat([]byte{fill}, 32))
}

func mustSealer(t testing.TB, secret config.Secret) *sealer {
	t.Helper()
	s, err := newSealer(secret)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// mustSeal seals priv with s for school 7 under kid-1, the pair the tests then open against.
func mustSeal(t testing.TB, s *sealer, priv *ecdsa.PrivateKey) []byte {
	t.Helper()
	blob, err := s.seal(7, "kid-1", priv)
	if err != nil {
		t.Fatal(err)
	}
	return blob
}

func TestSealRoundTrip(t *testing.T) {
	s := mustSealer(t, testSecret(1))
	priv := mustKey(t)
	blob := mustSeal(t, s, priv)
	if blob[0] != sealVersion {
		t.Fatalf("version byte = %d, want %d", blob[0], sealVersion)
	}
	got, err := s.open(7, "kid-1", blob)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(priv) {
		t.Fatal("decrypted key differs from the original")
	}
	// A second Manager process with the same secret derives the same key.
	if _, err := mustSealer(t, testSecret(1)).open(7, "kid-1", blob); err != nil {
		t.Fatalf("same secret, new sealer: %v", err)
	}
	// Fresh nonce each time: sealing the same key twice never repeats a ciphertext.
	again := mustSeal(t, s, priv)
	if bytes.Equal(blob[1:1+nonceSize], again[1:1+nonceSize]) || bytes.Equal(blob, again) {
		t.Fatal("two seals share a nonce")
	}
}

func TestOpenWrongSecret(t *testing.T) {
	blob := mustSeal(t, mustSealer(t, testSecret(1)), mustKey(t))
	if _, err := mustSealer(t, testSecret(2)).open(7, "kid-1", blob); !errors.Is(err, ErrDecrypt) {
		t.Fatalf("err = %v, want ErrDecrypt", err)
	}
}

func TestOpenTampered(t *testing.T) {
	s := mustSealer(t, testSecret(1))
	blob := mustSeal(t, s, mustKey(t))
	flip := func(i int) []byte {
		b := bytes.Clone(blob)
		b[i] ^= 0x01
		return b
	}
	cases := map[string][]byte{
		"version":      flip(0),
		"nonce":        flip(1),
		"ciphertext":   flip(1 + nonceSize + 5),
		"tag":          flip(len(blob) - 1),
		"truncated":    blob[:len(blob)-1],
		"tag only":     blob[:1+nonceSize+16],
		"too short":    blob[:1+nonceSize],
		"empty":        nil,
		"extra byte":   append(bytes.Clone(blob), 0),
		"version only": {sealVersion},
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := s.open(7, "kid-1", b)
			if !errors.Is(err, ErrDecrypt) {
				t.Fatalf("err = %v, want ErrDecrypt", err)
			}
		})
	}
}

func TestOpenBindsSchoolAndKID(t *testing.T) {
	s := mustSealer(t, testSecret(1))
	blob := mustSeal(t, s, mustKey(t))
	for _, c := range []struct {
		name   string
		school int64
		kid    string
	}{
		{"other school", 8, "kid-1"},
		{"other kid", 7, "kid-2"},
		{"both", 8, "kid-2"},
		// The school id has a fixed width, so shifting bytes between it and the kid cannot
		// produce the same additional data.
		{"empty kid", 7, ""},
		{"negative school", -7, "kid-1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := s.open(c.school, c.kid, blob); !errors.Is(err, ErrDecrypt) {
				t.Fatalf("err = %v, want ErrDecrypt", err)
			}
		})
	}
}

func TestShortSecretRefused(t *testing.T) {
	if _, err := newSealer(config.Secret(bytes.Repeat([]byte{1}, 31))); err == nil {
		t.Fatal("a 31-byte secret was accepted")
	}
	if _, err := newSealer(nil); err == nil {
		t.Fatal("an empty secret was accepted")
	}
}
