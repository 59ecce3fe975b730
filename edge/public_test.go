package edge

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestPublicRead(t *testing.T) {
	for _, c := range []struct {
		method   string
		goOn     bool
		status   int
		preflite bool
	}{
		{http.MethodGet, true, http.StatusOK, false},
		{http.MethodHead, true, http.StatusOK, false},
		{http.MethodOptions, false, http.StatusNoContent, true},
	} {
		w := httptest.NewRecorder()
		if got := PublicRead(w, httptest.NewRequest(c.method, "/doc", nil)); got != c.goOn {
			t.Errorf("%s: PublicRead = %v, want %v", c.method, got, c.goOn)
		}
		if w.Code != c.status {
			t.Errorf("%s: status %d, want %d", c.method, w.Code, c.status)
		}
		h := w.Header()
		if h.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%s: Access-Control-Allow-Origin %q", c.method, h.Get("Access-Control-Allow-Origin"))
		}
		if got := h.Get("Access-Control-Allow-Methods") != ""; got != c.preflite {
			t.Errorf("%s: Access-Control-Allow-Methods %q", c.method, h.Get("Access-Control-Allow-Methods"))
		}
	}
}

func TestWriteNoSchool(t *testing.T) {
	w := httptest.NewRecorder()
	WriteNoSchool(w)
	if w.Code != http.StatusNotFound || w.Header().Get("Content-Type") != "application/json" {
		t.Errorf("status %d, content type %q", w.Code, w.Header().Get("Content-Type"))
	}
}
