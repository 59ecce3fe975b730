package storage

import (
	"net/mail"
	"strings"
	"unicode"
)

// MaxEmailLen is the longest e-mail address SMTP can carry (RFC 5321 section 4.5.3.1.3: a path
// of 256 octets, less the angle brackets).
const MaxEmailLen = 254

// NormaliseEmail is the form in which member addresses are stored and looked up: trimmed and
// lower-cased, so that "Ada@Example.com " signs in, is invited and is reset as ada@example.com.
// Only case is folded: anything cleverer (dots, plus tags) would merge addresses that belong to
// different people.
func NormaliseEmail(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// ValidEmail reports whether s, exactly as given, is an address Proctor accepts for a member
// or a school contact. It is the one rule for every entry point (the CLI, the operator API,
// invitations, seed files); callers that accept loose input normalise it first
// (NormaliseEmail).
//
// The rule is RFC 5322's addr-spec as net/mail parses it, narrowed to what mail can be
// delivered to from a school: the bare address only (no display name, angle brackets,
// comments or quoting that changes it), exactly one @, at most MaxEmailLen bytes, no spaces or
// control characters, and a domain that is either a dotted name (example.com) or localhost or
// a name under it (RFC 6761 section 6.3), which development and tests use. Single-label
// domains ("a@intranet") and address literals ("a@[127.0.0.1]") are refused: a school's
// members are reached through the public DNS.
func ValidEmail(s string) bool {
	if s == "" || len(s) > MaxEmailLen || strings.Count(s, "@") != 1 {
		return false
	}
	if strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		return false
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s {
		return false
	}
	domain := s[strings.IndexByte(s, '@')+1:]
	lower := strings.ToLower(domain)
	switch {
	case strings.HasPrefix(domain, "["):
		return false
	case lower == "localhost" || strings.HasSuffix(lower, ".localhost"):
		return true
	default:
		return strings.Contains(domain, ".")
	}
}
