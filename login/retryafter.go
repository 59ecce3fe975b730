package login

import (
	"net/http"
	"strconv"
	"time"
)

// SetRetryAfter sets Retry-After to the longest of windows in whole seconds, rounded up and at
// least 1. Retry-After is delay-seconds (RFC 9110, 10.2.3): truncating a window under a second
// would send "0", which tells a client it may retry at once, inside the window that refused it.
func SetRetryAfter(w http.ResponseWriter, windows ...time.Duration) {
	var longest time.Duration
	for _, d := range windows {
		longest = max(longest, d)
	}
	secs := max(int64((longest+time.Second-1)/time.Second), 1)
	w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
}
