package keys

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"golang.org/x/crypto/hkdf"

	"github.com/proctorhq/proctor/config"
)

// ErrDecrypt means a stored private key could not be opened: the system secret is not the one
// it was encrypted with, or the row was altered or copied to another school or kid. The cause
// is deliberately not narrowed down further: AES-GCM cannot tell these apart, and guessing
// would only mislead.
var ErrDecrypt = errors.New("keys: cannot decrypt the signing key (wrong system secret, or the stored row was altered or moved)")

// sealVersion is the first byte of every ciphertext. It names the whole scheme (key
// derivation, AEAD, additional data, plaintext encoding) so that a later scheme can be told
// apart from this one and old rows still read.
const sealVersion byte = 1

// encryptionInfo is the HKDF info string. It is fixed here rather than built from a shared
// helper on purpose: a change to it would make every stored key unreadable, so it must only
// ever change together with sealVersion.
const encryptionInfo = "proctor signing-key encryption v1"

const nonceSize = 12 // the standard GCM nonce; random nonces are safe far beyond our row count

// sealer encrypts and decrypts private keys at rest with AES-256-GCM.
type sealer struct {
	aead cipher.AEAD
}

// newSealer derives the encryption key from the system secret. A key of its own (rather than
// the secret itself) means the secret's other uses, token HMACs among them, never share key
// material with this cipher.
func newSealer(secret config.Secret) (*sealer, error) {
	if len(secret) < config.MinSecretBytes {
		return nil, fmt.Errorf("keys: the system secret must be at least %d bytes", config.MinSecretBytes)
	}
	key := make([]byte, 32)
	if _, err := io.ReadFull(hkdf.New(sha256.New, secret, nil, []byte(encryptionInfo)), key); err != nil {
		return nil, fmt.Errorf("keys: derive the encryption key: %w", err)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("keys: %w", err)
	}
	aead, err := cipher.NewGCMWithNonceSize(block, nonceSize)
	if err != nil {
		return nil, fmt.Errorf("keys: %w", err)
	}
	return &sealer{aead: aead}, nil
}

// additionalData binds a ciphertext to its school and kid: a row copied to another school, or
// given another kid, fails authentication instead of letting one school's key sign for
// another. The school id has a fixed width, so the kid that follows cannot be confused with it.
func additionalData(schoolID int64, kid string) []byte {
	ad := make([]byte, 0, 1+8+len(kid))
	ad = append(ad, sealVersion)
	ad = binary.BigEndian.AppendUint64(ad, uint64(schoolID))
	return append(ad, kid...)
}

// seal returns version || nonce || AES-GCM(PKCS#8 DER of priv).
func (s *sealer) seal(schoolID int64, kid string, priv *ecdsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, fmt.Errorf("keys: encode private key: %w", err)
	}
	defer clear(der)
	out := make([]byte, 1+nonceSize, 1+nonceSize+len(der)+s.aead.Overhead())
	out[0] = sealVersion
	if _, err := rand.Read(out[1:]); err != nil {
		return nil, fmt.Errorf("keys: nonce: %w", err)
	}
	return s.aead.Seal(out, out[1:], der, additionalData(schoolID, kid)), nil
}

// open reverses seal. Every failure is an error wrapping ErrDecrypt or naming what is wrong;
// malformed input never panics.
func (s *sealer) open(schoolID int64, kid string, blob []byte) (*ecdsa.PrivateKey, error) {
	if len(blob) < 1+nonceSize+s.aead.Overhead() {
		return nil, fmt.Errorf("%w: ciphertext too short", ErrDecrypt)
	}
	if blob[0] != sealVersion {
		return nil, fmt.Errorf("%w: unknown encryption version %d", ErrDecrypt, blob[0])
	}
	der, err := s.aead.Open(nil, blob[1:1+nonceSize], blob[1+nonceSize:], additionalData(schoolID, kid))
	if err != nil {
		return nil, ErrDecrypt
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
