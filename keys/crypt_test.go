package keys

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"testing"

	"github.com/proctorhq/proctor/config"
)

// The stored format's version byte and nonce length (internal/seal), which the tests below
// alter.
const (
	sealVersion = 1
	nonceSize   = 12
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

// storedV1 is the P-256 key with scalar 0x01…0x20 (pkcs8V1) sealed for school 7 under kid-1
// with the system secret 0x5a×32, as version 1 of the format wrote it. Databases hold rows like
// it: it must open for as long as version 1 is read, whatever the code that opens it.
const (
	storedV1 = "016ae6783f4fbde91b6eb88b730037203e5d38fc16b383eddbf0ce729b1f2ef51a35e7c134e11a9838e2e4447e6549b65885fa1cf9fab22723baf6a4831f5f7bba36ca488dceea16f234504e623ef2b4cc570456e2de8f84610a6f76f90a552992ebe251542a4b18197ddd1646e183c38f9f24fe9461b5e6ceace7ad2df086887a875d2330eaa3865329d7d3cd7703d897c852e6d1510f41c21973ee34809fc04673f5ca08d474"
	pkcs8V1  = "308187020100301306072a8648ce3d020106082a8648ce3d030107046d306b02010104200102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20a14403420004515c3d6eb9e396b904d3feca7f54fdcd0cc1e997bf375dca515ad0a6c3b4035f4536be3a50f318fbf9a5475902a221502bef0d57e08c53b2cc0a56f17d9f9354"
)

func TestOpenStoredV1(t *testing.T) {
	blob, err := hex.DecodeString(storedV1)
	if err != nil {
		t.Fatal(err)
	}
	der, err := hex.DecodeString(pkcs8V1)
	if err != nil {
		t.Fatal(err)
	}
	want, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		t.Fatal(err)
	}
	got, err := mustSealer(t, config.Secret(bytes.Repeat([]byte{0x5a}, 32))).open(7, "kid-1", blob)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(want) {
		t.Fatal("the stored key opened to another key")
	}
}
