package account

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
)

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
