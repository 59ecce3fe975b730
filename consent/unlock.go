package consent

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"time"

	"github.com/proctorhq/proctor/storage"
)

// Unlocks keeps the times at which operators lifted accounts' lockouts (`proctor members
// unlock`), keyed by AccountDigest. It lives in the database, not in a Limiter: a CLI cannot
// reach a server's memory, and every replica and every kind of Limiter must honour an unlock.
// gormstore.Store implements it.
type Unlocks interface {
	// AccountUnlockedAt returns the latest unlock of the account, or the zero time if there
	// was none.
	AccountUnlockedAt(ctx context.Context, digest string) (time.Time, error)
	// UnlockAccount records an unlock of the account at at.
	UnlockAccount(ctx context.Context, digest string, at time.Time) error
}

// AccountDigest names an account in the limiter and in Unlocks: the first 128 bits of the
// SHA-256 of the normalised e-mail, base64url, so that neither holds addresses in clear.
func AccountDigest(email string) string {
	return base64.RawURLEncoding.EncodeToString(accountDigestBytes(storage.NormaliseEmail(email)))
}

func accountDigestBytes(email string) []byte {
	sum := sha256.Sum256([]byte(email))
	return sum[:digestLen]
}

// UnlockAccount lifts the lockout of the account of email at every replica and whatever the
// Limiter: the account's budget key carries the time of its latest unlock (accountLimitKey),
// so after an unlock the count starts afresh under a new key and the old one expires unread.
func UnlockAccount(ctx context.Context, u Unlocks, email string, at time.Time) error {
	return u.UnlockAccount(ctx, AccountDigest(email), at)
}

// accountLimitKey names an account's failure count: its digest, and the time of its latest
// unlock if any.
func accountLimitKey(digest []byte, unlockedAt time.Time) string {
	k := "account:" + base64.RawURLEncoding.EncodeToString(digest)
	if !unlockedAt.IsZero() {
		k += ":" + strconv.FormatInt(unlockedAt.UnixNano(), 36)
	}
	return k
}
