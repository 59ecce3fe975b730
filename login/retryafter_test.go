package login

import (
	"net/http/httptest"
	"testing"
	"time"
)

// TestSetRetryAfterRoundsUp: a window is never sent shorter than it is, nor as "0".
func TestSetRetryAfterRoundsUp(t *testing.T) {
	for _, c := range []struct {
		windows []time.Duration
		want    string
	}{
		{nil, "1"},
		{[]time.Duration{0}, "1"},
		{[]time.Duration{time.Millisecond}, "1"},
		{[]time.Duration{500 * time.Millisecond}, "1"},
		{[]time.Duration{time.Second}, "1"},
		{[]time.Duration{1200 * time.Millisecond}, "2"},
		{[]time.Duration{15 * time.Minute}, "900"},
		{[]time.Duration{time.Minute, 15 * time.Minute, 500 * time.Millisecond}, "900"},
		{[]time.Duration{300 * time.Millisecond, 2500 * time.Millisecond, time.Second}, "3"},
	} {
		w := httptest.NewRecorder()
		SetRetryAfter(w, c.windows...)
		if got := w.Header().Get("Retry-After"); got != c.want {
			t.Errorf("SetRetryAfter(%v) = %q, want %q", c.windows, got, c.want)
		}
	}
}
