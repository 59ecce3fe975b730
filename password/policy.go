package password

import (
	"errors"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/trustelem/zxcvbn/frequency"
)

// MinLength is the fewest characters a new password may have (NIST SP 800-63B, section
// 3.1.1.2: at least 8 when chosen by the member).
const MinLength = 8

// Reasons CheckPolicy refuses a new password. Their texts are shown to the member as they are,
// so each is a sentence saying what to do; callers tell them apart with errors.Is.
var (
	ErrTooShort   = errors.New("Choose a password of at least 8 characters.")
	ErrTooLongNew = errors.New("Choose a password of at most 1024 bytes.")
	// ErrCommon: the password is in the list of commonly used passwords (SP 800-63B 3.1.1.2:
	// "passwords obtained from previous breach corpuses", "commonly-used passwords").
	ErrCommon = errors.New("This password is too common: it appears in lists attackers try first. Choose another.")
	// ErrContext: the password is one of the member's own words, such as their e-mail address
	// or name (SP 800-63B 3.1.1.2: "context-specific words").
	ErrContext = errors.New("This password is your name or e-mail address, which others can guess. Choose another.")
)

// CheckPolicy reports whether pw may become a member's new password: its length is within
// bounds, it is not commonly used, and it is none of avoid, words of the member's own context
// (their e-mail address, their name); for an e-mail address in avoid, its local part is
// avoided as well when it is at least MinLength characters long. Comparisons ignore case and
// surrounding spaces. It returns nil or one of the Err* values above, whose text can be shown
// to the member. There are no composition rules (SP 800-63B 3.1.1.2: verifiers should not
// impose them).
func CheckPolicy(pw string, avoid ...string) error {
	switch {
	case len(pw) > MaxLength:
		return ErrTooLongNew
	case utf8.RuneCountInString(pw) < MinLength:
		return ErrTooShort
	}
	norm := normalise(pw)
	if commonPasswords()[norm] {
		return ErrCommon
	}
	for _, w := range avoid {
		w = normalise(w)
		if w == "" {
			continue
		}
		if norm == w {
			return ErrContext
		}
		if at := strings.LastIndexByte(w, '@'); at > 0 {
			if local := strings.TrimSpace(w[:at]); utf8.RuneCountInString(local) >= MinLength && norm == local {
				return ErrContext
			}
		}
	}
	return nil
}

// normalise is how passwords are compared with the list and the member's words: case and
// surrounding spaces do not make a common password uncommon.
func normalise(s string) string {
	return strings.ToLower(strings.TrimSpace(s))
}

// commonPasswords is the set of the 30,000 most used passwords that zxcvbn ships
// (github.com/trustelem/zxcvbn/frequency, its "passwords" list, drawn from leaked password
// sets), normalised. Entries shorter than MinLength stay in: padded with spaces they pass the
// length rule ("dragon  "), and the comparison trims them. Built on first use, not at
// start-up, since most requests never set a password.
var commonPasswords = sync.OnceValue(func() map[string]bool {
	list := frequency.FrequencyLists["passwords"]
	set := make(map[string]bool, len(list))
	for _, p := range list {
		if p = normalise(p); p != "" {
			set[p] = true
		}
	}
	return set
})
