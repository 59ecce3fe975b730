package passkey

import (
	"net/url"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzReadForm feeds arbitrary finish forms to what reads them: the credential's JSON through
// the WebAuthn library's parsers, the passkey's name and id. None may panic; a name comes out
// short and printable.
func FuzzReadForm(f *testing.F) {
	f.Add(`{"id":"AAAA","rawId":"AAAA","type":"public-key","response":{"clientDataJSON":"e30","attestationObject":"oA"}}`, "Laptop", "1")
	f.Add(`{"id":"AAAA","rawId":"AAAA","type":"public-key","response":{"clientDataJSON":"e30","authenticatorData":"AAAA","signature":"AA","userHandle":"AA"}}`, " a\tb\u200b ", "-1")
	f.Add(`{}`, strings.Repeat("é", 100), "9223372036854775808")
	f.Add(``, "\x00\xff", "")
	f.Fuzz(func(t *testing.T, response, name, id string) {
		form := url.Values{"response": {response}, "name": {name}, "id": {id}}
		if p, err := parseCreation(form); err == nil && p == nil {
			t.Fatal("parseCreation: no error and nothing parsed")
		}
		if p, err := parseAssertion(form); err == nil && p == nil {
			t.Fatal("parseAssertion: no error and nothing parsed")
		}
		n := cleanName(name)
		if utf8.RuneCountInString(n) > maxNameRunes || !utf8.ValidString(n) || n != strings.TrimSpace(n) {
			t.Fatalf("cleanName(%q) = %q", name, n)
		}
		for _, c := range n {
			if unicode.IsControl(c) || unicode.Is(unicode.Cf, c) {
				t.Fatalf("cleanName(%q) = %q keeps %U", name, n, c)
			}
		}
		if got, err := readID(form); err == nil && got <= 0 {
			t.Fatalf("readID(%q) = %d", id, got)
		}
	})
}
