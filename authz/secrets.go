package authz

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"

	"github.com/ory/fosite"
)

// SecretHasher stores client secrets as HMAC-SHA256 under a key derived from the system secret.
// Client secrets are 256-bit random values, so a slow password hash (fosite's default, bcrypt
// at cost 12, about a quarter of a second) would protect nothing and cost every token call;
// a keyed hash means a stolen database alone cannot verify guesses.
type SecretHasher struct {
	key []byte
}

var _ fosite.Hasher = (*SecretHasher)(nil)

// NewSecretHasher returns a hasher keyed with key (config.Secret.Derive("client secrets")).
func NewSecretHasher(key []byte) *SecretHasher { return &SecretHasher{key: key} }

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

// NewClientSecret returns a fresh 256-bit client secret and its stored hash. The secret is
// shown to the operator once and never stored.
func (h *SecretHasher) NewClientSecret() (secret, hash string, err error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", "", err
	}
	secret = base64.RawURLEncoding.EncodeToString(b)
	return secret, h.hash([]byte(secret)), nil
}

// NewClientID returns a fresh client id: "pc_" and 128 random bits. It never looks like a URL,
// so it cannot be mistaken for a Client ID Metadata Document address.
func NewClientID() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return "pc_" + base64.RawURLEncoding.EncodeToString(b), nil
}
