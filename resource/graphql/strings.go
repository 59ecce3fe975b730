package graphql

import (
	"bytes"
	"io"
	"unicode/utf8"

	"github.com/99designs/gqlgen/graphql"
)

// The String scalar is written as encoding/json writes a string, so that an answer is byte for
// byte what marshalling its values would give: <, > and & escaped (a document sniffed as HTML
// shows no markup), U+2028 and U+2029 escaped (JavaScript before ES2019 took them for line
// ends), invalid UTF-8 replaced by U+FFFD. gqlgen's own String writes them as they are.
// gqlgen.yml binds the scalar to this pair (by the name String).

// MarshalString writes s as a JSON string.
func MarshalString(s string) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		writeAppended(w, len(s)+2, func(b []byte) []byte { return appendJSONString(b, s) })
	})
}

// UnmarshalString reads a String input as gqlgen does.
func UnmarshalString(v any) (string, error) { return graphql.UnmarshalString(v) }

// writeAppended writes what appendTo appends. When w is the executor's buffer, it makes room for
// about size bytes there and appends in place.
func writeAppended(w io.Writer, size int, appendTo func([]byte) []byte) {
	if bb, ok := w.(*bytes.Buffer); ok {
		bb.Grow(size)
		_, _ = bb.Write(appendTo(bb.AvailableBuffer()))
		return
	}
	_, _ = w.Write(appendTo(nil))
}

const hexDigits = "0123456789abcdef"

// safeASCII[b] is whether encoding/json writes the ASCII byte b as it is.
var safeASCII = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
	}
	return t
}()

// appendJSONString follows encoding/json's appendString with HTML escaping on.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if safeASCII[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
