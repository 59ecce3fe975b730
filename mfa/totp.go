package mfa

import (
	"crypto/subtle"
	"encoding/base32"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/hotp"
)

// TOTP parameters (RFC 6238): what every authenticator app assumes when a key URI names none.
const (
	totpPeriod = 30 // seconds
	totpSkew   = 1  // steps accepted either side of the current one
	secretSize = 20 // bytes: the HMAC-SHA1 block the RFC recommends
)

var totpOpts = hotp.ValidateOpts{Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

var b32 = base32.StdEncoding.WithPadding(base32.NoPadding)

// step is the RFC 6238 time step of t.
func step(t time.Time) int64 { return t.Unix() / totpPeriod }

// matchStep returns the step within the skew of now whose code is code and that is later than
// last, or 0 and false. Every candidate is computed and compared in constant time, so the time
// taken says nothing about which matched.
func matchStep(secret []byte, code string, now time.Time, last int64) (int64, bool) {
	if len(code) != 6 {
		return 0, false
	}
	key := b32.EncodeToString(secret)
	cur := step(now)
	var found int64
	for s := cur - totpSkew; s <= cur+totpSkew; s++ {
		want, err := hotp.GenerateCodeCustom(key, uint64(s), totpOpts)
		if err != nil {
			return 0, false
		}
		if subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 && s > last && found == 0 {
			found = s
		}
	}
	return found, found != 0
}
