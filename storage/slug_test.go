package storage

import (
	"strings"
	"testing"
)

func TestValidSlug(t *testing.T) {
	for _, s := range []string{"a", "go-basics", "web-apis-with-go", "2026-kakizome", strings.Repeat("a", MaxSlugLen)} {
		if !ValidSlug(s) {
			t.Errorf("ValidSlug(%q) = false, want true", s)
		}
	}
	for _, s := range []string{"", "go_basics", "go--basics", "go-", "-go", "Go", "go basics", "gö", strings.Repeat("a", MaxSlugLen+1), "go\n"} {
		if ValidSlug(s) {
			t.Errorf("ValidSlug(%q) = true, want false", s)
		}
	}
}

func TestValidCurrency(t *testing.T) {
	for _, s := range []string{"USD", "JPY", "EUR"} {
		if !ValidCurrency(s) {
			t.Errorf("ValidCurrency(%q) = false, want true", s)
		}
	}
	for _, s := range []string{"", "usd", "US", "USDT", "U$D", "USD\n"} {
		if ValidCurrency(s) {
			t.Errorf("ValidCurrency(%q) = true, want false", s)
		}
	}
}
