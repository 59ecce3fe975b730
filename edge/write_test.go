package edge

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestWriteBodyError(t *testing.T) {
	w := httptest.NewRecorder()
	_, err := io.ReadAll(http.MaxBytesReader(w, io.NopCloser(strings.NewReader("too long")), 3))
	called := false
	WriteBodyError(w, err, func() { called = true })
	if called || w.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("over the limit: status %d, bad called %v; want 413 and not called", w.Code, called)
	}

	w = httptest.NewRecorder()
	WriteBodyError(w, errors.New("unreadable"), func() { called = true; w.WriteHeader(http.StatusBadRequest) })
	if !called || w.Code != http.StatusBadRequest {
		t.Errorf("unreadable: status %d, bad called %v; want the caller's 400", w.Code, called)
	}
}
