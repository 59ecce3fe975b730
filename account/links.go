package account

import (
	"encoding/hex"

	"github.com/proctorhq/proctor/login"
)

// linkID is the store id of a link token: HMAC-SHA256 under a key derived from the system
// secret, so that a leaked table holds nothing a browser could present.
func linkID(key []byte, token string) string { return login.TokenID(key, token) }

// PasswordStamp is a short digest of a stored password hash (or of none: ""). A link records
// the stamp of the password it was made under and is honoured only while the member's current
// hash still has it.
func PasswordStamp(key []byte, passwordHash string) string {
	return hex.EncodeToString(login.MAC(key, []byte("password-stamp\x00"+passwordHash))[:16])
}
