package storage

import (
	"strings"
	"testing"
	"unicode"
)

func TestValidEmail(t *testing.T) {
	for s, want := range map[string]bool{
		"ada@example.com":                         true,
		"Ada.Lovelace+proctor@mail.example.ac.uk": true,
		"noreply@localhost":                       true,
		"dev@school.localhost":                    true,
		"o'brien@example.com":                     true,
		"x@" + strings.Repeat("a", 249) + ".io":   true,  // 254 bytes
		"x@" + strings.Repeat("a", 250) + ".io":   false, // 255 bytes
		"":                                        false,
		"bad":                                     false,
		"@example.com":                            false,
		"ada@":                                    false,
		"two@@example.com":                        false,
		"a@b@example.com":                         false,
		`"a@b"@example.com`:                       false,
		`"ada lovelace"@example.com`:              false,
		"Ada <ada@example.com>":                   false,
		"<ada@example.com>":                       false,
		"ada@example.com (Ada)":                   false,
		" ada@example.com":                        false,
		"ada@example.com ":                        false,
		"ada lovelace@example.com":                false,
		"ada@exam\tple.com":                       false,
		"ada\n@example.com":                       false,
		"ada@example.com\x00":                     false,
		"ada@intranet":                            false,
		"ada@[127.0.0.1]":                         false,
		"ada@example..com":                        false,
		"ada@.example.com":                        false,
		"ada@example.com.":                        false,
		".ada@example.com":                        false,
		"ada.@example.com":                        false,
	} {
		if got := ValidEmail(s); got != want {
			t.Errorf("ValidEmail(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestNormaliseEmail(t *testing.T) {
	for in, want := range map[string]string{
		" Ada@Example.COM\n": "ada@example.com",
		"ada@example.com":    "ada@example.com",
		"":                   "",
	} {
		if got := NormaliseEmail(in); got != want {
			t.Errorf("NormaliseEmail(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzValidEmail: an accepted address has exactly one @, fits in SMTP's limit, contains no
// space or control character, and stays accepted once normalised (what the store keeps).
func FuzzValidEmail(f *testing.F) {
	for _, s := range []string{"ada@example.com", "noreply@localhost", "Ada <ada@example.com>", `"a@b"@c.com`,
		"a@[127.0.0.1]", "two@@example.com", "ada@exam ple.com", "ü@例え.jp", "a@b", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !ValidEmail(s) {
			return
		}
		if strings.Count(s, "@") != 1 || len(s) > MaxEmailLen {
			t.Fatalf("accepted %q", s)
		}
		if strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
			t.Fatalf("accepted %q with a space or control character", s)
		}
		if n := NormaliseEmail(s); len(n) <= MaxEmailLen && !ValidEmail(n) {
			t.Fatalf("accepted %q but not its normal form %q", s, n)
		}
	})
}
