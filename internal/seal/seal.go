package seal

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
)

// KeySize is the length of a Sealer's key: AES-256.
const KeySize = 32

// version is the first byte of every sealing and of its additional data.
const version byte = 1

// nonceSize is the standard GCM nonce. Random nonces are safe far beyond the number of rows
// sealed under one key.
const nonceSize = 12

// ErrOpen is what every error of Open is (errors.Is): the key is not the one the bytes were
// sealed with, they were altered, or they belong to another school or label. AES-GCM cannot
// tell these apart, so callers map it to their own error and do not guess.
var ErrOpen = errors.New("seal: authentication failed")

// malformed is Open's error for bytes that cannot be a sealing of this format at all. It is
// ErrOpen to callers, with what is wrong in its text.
type malformed string

func (m malformed) Error() string      { return "seal: " + string(m) }
func (malformed) Is(target error) bool { return target == ErrOpen }

// Sealer seals and opens under one key. It is safe for concurrent use.
type Sealer struct {
	aead cipher.AEAD
	// readNonce fills a fresh nonce: crypto/rand.Read, which never fails (it ends the program
	// if the system has no randomness). This package's tests replace it to check the bytes
	// sealed against a fixed vector.
	readNonce func([]byte) (int, error)
}

// New returns a Sealer under key, which must be KeySize bytes.
func New(key []byte) (*Sealer, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("seal: the key must be %d bytes, not %d", KeySize, len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	return &Sealer{aead: aead, readNonce: rand.Read}, nil
}

// Seal returns version || nonce || AES-256-GCM(plaintext), bound to schoolID and label.
func (s *Sealer) Seal(schoolID int64, label string, plaintext []byte) []byte {
	out := make([]byte, 1+nonceSize, 1+nonceSize+len(plaintext)+s.aead.Overhead())
	out[0] = version
	_, _ = s.readNonce(out[1:])
	return s.aead.Seal(out, out[1:], plaintext, additionalData(schoolID, label))
}

// Open reverses Seal for the same schoolID and label. Every failure is ErrOpen (errors.Is);
// malformed input never panics.
func (s *Sealer) Open(schoolID int64, label string, sealed []byte) ([]byte, error) {
	if len(sealed) < 1+nonceSize+s.aead.Overhead() {
		return nil, malformed("ciphertext too short")
	}
	if sealed[0] != version {
		return nil, malformed(fmt.Sprintf("unknown version %d", sealed[0]))
	}
	plain, err := s.aead.Open(nil, sealed[1:1+nonceSize], sealed[1+nonceSize:], additionalData(schoolID, label))
	if err != nil {
		return nil, ErrOpen
	}
	return plain, nil
}

// additionalData is version || schoolID (8 bytes, big-endian) || label.
func additionalData(schoolID int64, label string) []byte {
	ad := make([]byte, 0, 1+8+len(label))
	ad = append(ad, version)
	ad = binary.BigEndian.AppendUint64(ad, uint64(schoolID))
	return append(ad, label...)
}
