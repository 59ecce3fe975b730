package schools

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// RequestBody is the body of an API request a test sends: none for nil, bytes and strings as
// they are (a body that is not JSON, or JSON written by hand), anything else as JSON.
func RequestBody(t testing.TB, body any) io.Reader {
	t.Helper()
	switch b := body.(type) {
	case nil:
		return nil
	case []byte:
		return bytes.NewReader(b)
	case string:
		return strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		return bytes.NewReader(raw)
	}
}

// DecodeJSON reads the JSON document raw (an API's answer, say) into a T, and fails the test
// now, showing raw, if it is not one.
func DecodeJSON[T any](t testing.TB, raw []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, raw)
	}
	return v
}
