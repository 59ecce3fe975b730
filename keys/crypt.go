package keys

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/x509"
	"errors"
	"fmt"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/internal/seal"
)

// ErrDecrypt means a stored private key could not be opened: the system secret is not the one
// it was encrypted with, or the row was altered or copied to another school or kid. The cause
// is deliberately not narrowed down further: AES-GCM cannot tell these apart, and guessing
// would only mislead.
var ErrDecrypt = errors.New("keys: cannot decrypt the signing key (wrong system secret, or the stored row was altered or moved)")

// encryptionPurpose names the key derived from the system secret (config.Secret.Derive, HKDF
// info "proctor signing-key encryption v1"). It is fixed here rather than shared on purpose: a
// change to it would make every stored key unreadable.
const encryptionPurpose = "signing-key encryption v1"

// sealer encrypts and decrypts private keys at rest: PKCS#8 DER sealed by internal/seal, bound
// to the key's school and kid, so that a row copied to another school, or given another kid,
// fails instead of letting one school's key sign for another.
type sealer struct {
	s *seal.Sealer
}

// newSealer derives the encryption key from the system secret. A key of its own (rather than
// the secret itself) means the secret's other uses, token HMACs among them, never share key
// material with this cipher.
func newSealer(secret config.Secret) (*sealer, error) {
	if len(secret) < config.MinSecretBytes {
		return nil, fmt.Errorf("keys: the system secret must be at least %d bytes", config.MinSecretBytes)
	}
	s, err := seal.New(secret.Derive(encryptionPurpose))
	if err != nil {
		return nil, fmt.Errorf("keys: %w", err)
	}
	return &sealer{s: s}, nil
}

// seal returns priv's PKCS#8 DER, sealed.
func (s *sealer) seal(schoolID int64, kid string, priv *ecdsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, fmt.Errorf("keys: encode private key: %w", err)
	}
	defer clear(der)
	return s.s.Seal(schoolID, kid, der), nil
}

// open reverses seal. Every failure is an error wrapping ErrDecrypt or naming what is wrong;
// malformed input never panics.
func (s *sealer) open(schoolID int64, kid string, blob []byte) (*ecdsa.PrivateKey, error) {
	der, err := s.s.Open(schoolID, kid, blob)
	if err != nil {
		// seal's error says which check failed (too short, unknown version, authentication).
		return nil, fmt.Errorf("%w: %w", ErrDecrypt, err)
	}
	defer clear(der)
	k, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		return nil, fmt.Errorf("keys: decrypted key is not PKCS#8: %w", err)
	}
	priv, ok := k.(*ecdsa.PrivateKey)
	if !ok || priv.Curve != elliptic.P256() {
		return nil, errors.New("keys: decrypted key is not a P-256 ECDSA key")
	}
	return priv, nil
}
