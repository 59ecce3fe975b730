package netguard

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

// ReadBody takes a body of the limit, and refuses a larger one by its Content-Length before
// reading or, without a length, once one byte more than the limit has arrived.
func TestReadBody(t *testing.T) {
	errBig := errors.New("too large")
	resp := func(body string, length int64) *http.Response {
		return &http.Response{Body: io.NopCloser(strings.NewReader(body)), ContentLength: length}
	}
	if b, err := ReadBody(resp("abcd", 4), 4, errBig); err != nil || string(b) != "abcd" {
		t.Errorf("a body of the limit: %q, %v", b, err)
	}
	if b, err := ReadBody(resp("abcd", -1), 4, errBig); err != nil || string(b) != "abcd" {
		t.Errorf("a body of the limit without a length: %q, %v", b, err)
	}
	if _, err := ReadBody(resp("", 5), 4, errBig); !errors.Is(err, errBig) {
		t.Errorf("Content-Length over the limit: %v", err)
	}
	r := resp("abcdefgh", -1)
	if _, err := ReadBody(r, 4, errBig); !errors.Is(err, errBig) {
		t.Errorf("a body over the limit without a length: %v", err)
	}
	if rest, _ := io.ReadAll(r.Body); string(rest) != "fgh" {
		t.Errorf("read past the limit and one byte: %q left unread, want %q", rest, "fgh")
	}
}
