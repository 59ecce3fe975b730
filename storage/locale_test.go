package storage

import (
	"strings"
	"testing"
)

func TestValidLocale(t *testing.T) {
	long := "en" + strings.Repeat("-abcdefgh", 3) + "-abcde" // MaxLocaleLen bytes
	if len(long) != MaxLocaleLen {
		t.Fatalf("len(%q) = %d, want %d", long, len(long), MaxLocaleLen)
	}
	for _, s := range []string{"en", "ja", "zh-TW", "en-US", "ja-JP", "de-DE", "zh-Hant-TW", "EN-us", "haw", "es-419", long} {
		if !ValidLocale(s) {
			t.Errorf("ValidLocale(%q) = false, want true", s)
		}
	}
	for _, s := range []string{"", "e", "German", "en_US", "en-", "-en", "en--US", "en-U", "en-abcdefghi", "1a", "en US", "én", long + "d", "en\n"} {
		if ValidLocale(s) {
			t.Errorf("ValidLocale(%q) = true, want false", s)
		}
	}
}
