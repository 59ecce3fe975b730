package account

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
)

const tokenBytes = 32 // 256 bits

// newToken returns 256 random bits, base64url-encoded without padding: the secret part of a
// one-time link.
func newToken() string {
	b := make([]byte, tokenBytes)
	// crypto/rand.Read never fails (it aborts the program if the system has no randomness).
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// wellFormedToken reports whether s could be a token of newToken, so that junk is never hashed
// or looked up.
func wellFormedToken(s string) bool {
	if len(s) != base64.RawURLEncoding.EncodedLen(tokenBytes) {
		return false
	}
	// The decoder skips '\r' and '\n', so the length of what it decodes is checked too.
	b, err := base64.RawURLEncoding.DecodeString(s)
	return err == nil && len(b) == tokenBytes
}

// linkID is the store id of a link token: HMAC-SHA256 under a key derived from the system
// secret, so that a leaked table holds nothing a browser could present.
func linkID(key []byte, token string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(token))
	return hex.EncodeToString(m.Sum(nil))
}

// PasswordStamp is a short digest of a stored password hash (or of none: ""). A link records
// the stamp of the password it was made under and is honoured only while the member's current
// hash still has it.
func PasswordStamp(key []byte, passwordHash string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("password-stamp\x00" + passwordHash))
	return hex.EncodeToString(m.Sum(nil)[:16])
}
