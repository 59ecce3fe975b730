package account

import (
	"testing"
	"time"

	"github.com/proctorhq/proctor/server/servertest/schools"
)

// A link's expiry is written in the localizer's language and time zone, the plural as the
// language has it.
func TestExpiresText(t *testing.T) {
	cat := schools.Catalogue(t)
	taipei := time.FixedZone("CST", 8*3600)
	at := time.Date(2030, 1, 2, 3, 4, 5, 0, time.FixedZone("X", 3600))
	for _, tc := range []struct {
		lang string
		zone *time.Location
		ttl  time.Duration
		want string
	}{
		{"en", nil, 7 * 24 * time.Hour, "in 7 days (2 Jan 2030, 02:04 UTC)"},
		{"en", nil, 30 * time.Minute, "in 30 minutes (2 Jan 2030, 02:04 UTC)"},
		{"en", nil, 24 * time.Hour, "in 24 hours (2 Jan 2030, 02:04 UTC)"},
		{"en", nil, 90 * time.Second, "in 2 minutes (2 Jan 2030, 02:04 UTC)"},
		{"en", nil, time.Minute, "in 1 minute (2 Jan 2030, 02:04 UTC)"},
		{"en", taipei, 7 * 24 * time.Hour, "in 7 days (2 Jan 2030, 10:04 CST)"},
		{"ja", taipei, 7 * 24 * time.Hour, "7 日後（2030年1月2日 10:04 CST）"},
		{"zh-TW", taipei, 30 * time.Minute, "30 分鐘後（2030年1月2日 10:04 CST）"},
	} {
		if got := expiresText(cat.Localizer(tc.lang, tc.zone), tc.ttl, at); got != tc.want {
			t.Errorf("%s: expiresText(%v) = %q, want %q", tc.lang, tc.ttl, got, tc.want)
		}
	}
}

// A reset request carries the language of the form; one queued before requests did reads as
// the address alone.
func TestResetPayload(t *testing.T) {
	if lang, email := readResetPayload(resetPayload("ja", "a@example.com")); lang != "ja" || email != "a@example.com" {
		t.Errorf("read %q, %q", lang, email)
	}
	if lang, email := readResetPayload([]byte("a@example.com")); lang != "" || email != "a@example.com" {
		t.Errorf("an old request read as %q, %q", lang, email)
	}
}

func TestPasswordStampFollowsTheHash(t *testing.T) {
	key := []byte("k")
	if PasswordStamp(key, "") == PasswordStamp(key, "$argon2id$x") || PasswordStamp(key, "a") != PasswordStamp(key, "a") ||
		PasswordStamp(key, "a") == PasswordStamp([]byte("other"), "a") {
		t.Fatal("stamps do not follow the hash and the key")
	}
}
