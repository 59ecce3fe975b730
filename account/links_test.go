package account

import (
	"testing"
	"time"
)

func TestExpiresText(t *testing.T) {
	at := time.Date(2030, 1, 2, 3, 4, 5, 0, time.FixedZone("X", 3600))
	for _, tc := range []struct {
		ttl  time.Duration
		want string
	}{
		{7 * 24 * time.Hour, "in 7 days (2030-01-02 02:04 UTC)"},
		{30 * time.Minute, "in 30 minutes (2030-01-02 02:04 UTC)"},
		{24 * time.Hour, "in 24 hours (2030-01-02 02:04 UTC)"},
		{90 * time.Second, "in 2 minutes (2030-01-02 02:04 UTC)"},
	} {
		if got := expiresText(tc.ttl, at); got != tc.want {
			t.Errorf("expiresText(%v) = %q, want %q", tc.ttl, got, tc.want)
		}
	}
}

func TestPasswordStampFollowsTheHash(t *testing.T) {
	key := []byte("k")
	if PasswordStamp(key, "") == PasswordStamp(key, "$argon2id$x") || PasswordStamp(key, "a") != PasswordStamp(key, "a") ||
		PasswordStamp(key, "a") == PasswordStamp([]byte("other"), "a") {
		t.Fatal("stamps do not follow the hash and the key")
	}
}
