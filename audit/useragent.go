package audit

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxUserAgent bounds the User-Agent that events and sessions keep, in bytes: enough for any
// real browser's, while a client sending kilobytes cannot make every row that large.
const MaxUserAgent = 512

// ClipUserAgent is a User-Agent header as Proctor keeps and reads it: invalid UTF-8 and control
// characters dropped, so the text is safe to store (PostgreSQL refuses invalid UTF-8 in a text
// column, and the row with it), to show and to log; and cut to MaxUserAgent bytes without
// splitting a character.
func ClipUserAgent(ua string) string {
	var b strings.Builder
	for len(ua) > 0 {
		c, size := utf8.DecodeRuneInString(ua)
		ua = ua[size:]
		if (c == utf8.RuneError && size == 1) || unicode.IsControl(c) {
			continue
		}
		if b.Len()+size > MaxUserAgent {
			break
		}
		b.WriteRune(c)
	}
	return b.String()
}
