package login

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
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

// ErrNoUnlocks means the handler was built without Unlocks: a lockout can only run out.
var ErrNoUnlocks = errors.New("login: this server keeps no account unlocks")

// AccountLocked reports whether the sign-in page refuses the account of email for now: its
// failure budget (under the key of its latest unlock) is spent. A browser the account signed in
// from before may still get its own device budget; the account itself is locked. Nothing is
// charged.
func (h *Handler) AccountLocked(ctx context.Context, email string) (bool, error) {
	digest := accountDigestBytes(storage.NormaliseEmail(email))
	var unlockedAt time.Time
	if h.unlocks != nil {
		var err error
		if unlockedAt, err = h.unlocks.AccountUnlockedAt(ctx, base64.RawURLEncoding.EncodeToString(digest)); err != nil {
			return false, fmt.Errorf("login: read account unlock: %w", err)
		}
	}
	spent, err := h.limiter.Spent(ctx, accountLimitKey(digest, unlockedAt), h.accountLimit)
	if err != nil {
		return false, fmt.Errorf("login: rate limiter: %w", err)
	}
	return spent, nil
}

// UnlockAccount lifts the lockout of the account of email now, as `proctor members unlock`
// does (UnlockAccount): every replica honours it. ErrNoUnlocks without Unlocks.
func (h *Handler) UnlockAccount(ctx context.Context, email string) error {
	if h.unlocks == nil {
		return ErrNoUnlocks
	}
	return UnlockAccount(ctx, h.unlocks, email, h.now())
}
