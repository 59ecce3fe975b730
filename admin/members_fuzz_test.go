package admin

import (
	"strconv"
	"testing"
)

// FuzzParseMemberID: any path segment is read without panicking, and only the canonical form
// of a positive id is accepted.
func FuzzParseMemberID(f *testing.F) {
	for _, s := range []string{"1", "42", "0", "-1", "01", "+1", " 1", "9223372036854775807", "9223372036854775808", "1e3", "", "abc"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		id, ok := parseMemberID(raw)
		if !ok {
			return
		}
		if id <= 0 || strconv.FormatInt(id, 10) != raw {
			t.Fatalf("parseMemberID(%q) = %d, accepted", raw, id)
		}
	})
}
