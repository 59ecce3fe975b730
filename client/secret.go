package client

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"

	"github.com/proctorhq/proctor/config"
)

// secretKeyPurpose names the key derived from the system secret for client secrets. Changing
// it would invalidate every stored client secret.
const secretKeyPurpose = "client secrets"

// SecretHasher stores client secrets as HMAC-SHA256 under a key derived from the system secret.
// Client secrets are 256-bit random values, so a slow password hash (fosite's default, bcrypt
// at cost 12, about a quarter of a second) would protect nothing and cost every token call;
// a keyed hash means a stolen database alone cannot verify guesses.
//
// Its Hash and Compare are the methods of fosite's Hasher: the authorization server checks
// client secrets with it at the token and revocation endpoints.
type SecretHasher struct {
	key []byte
}

// NewSecretHasher returns the hasher keyed under the system secret s. Everything that issues or
// checks client secrets must derive it from the same system secret; Manager.Hasher returns the
// one the server was built with.
func NewSecretHasher(s config.Secret) *SecretHasher {
	return &SecretHasher{key: s.Derive(secretKeyPurpose)}
}

// Hash returns the keyed hash of a secret, base64url-encoded.
func (h *SecretHasher) Hash(_ context.Context, secret []byte) ([]byte, error) {
	return []byte(h.hash(secret)), nil
}

func (h *SecretHasher) hash(secret []byte) string {
	m := hmac.New(sha256.New, h.key)
	m.Write(secret)
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

var errSecretMismatch = errors.New("client secret mismatch")

// Compare checks a presented secret against a stored hash in constant time.
func (h *SecretHasher) Compare(_ context.Context, hash, secret []byte) error {
	if len(hash) == 0 || !hmac.Equal(hash, []byte(h.hash(secret))) {
		return errSecretMismatch
	}
	return nil
}

// NewSecret returns a fresh 256-bit client secret and its stored hash. The secret is shown to
// the operator once and never stored.
func (h *SecretHasher) NewSecret() (secret, hash string, err error) {
	secret, err = random(32)
	if err != nil {
		return "", "", err
	}
	return secret, h.hash([]byte(secret)), nil
}

// NewID returns a fresh client id: "pc_" and 128 random bits. It never looks like a URL, so it
// cannot be mistaken for a Client ID Metadata Document address.
func NewID() (string, error) {
	r, err := random(16)
	if err != nil {
		return "", err
	}
	return "pc_" + r, nil
}

// random returns n random bytes, base64url-encoded without padding.
func random(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}
