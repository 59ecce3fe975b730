package login

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestCookieHelpersKeepHostPrefixRules: every cookie SetCookie and ClearCookie write under a
// "__Host-" name is Secure, host-only and for "/" (else a browser drops it), and the prefix is
// there exactly when secure. HttpOnly always; SameSite and Max-Age as asked.
func TestCookieHelpersKeepHostPrefixRules(t *testing.T) {
	names := []string{SessionCookie, PendingCookie, LoginCSRFCookie, LanguageCookie, DeviceCookie, "proctor_passkey"}
	for _, secure := range []bool{false, true} {
		for _, name := range names {
			for _, same := range []http.SameSite{http.SameSiteLaxMode, http.SameSiteStrictMode} {
				w := httptest.NewRecorder()
				SetCookie(w, secure, name, "v", 90*time.Second+500*time.Millisecond, same)
				ClearCookie(w, secure, name, same)
				res := w.Result()
				cs := res.Cookies()
				if len(cs) != 2 {
					t.Fatalf("%s secure=%v: %d cookies written", name, secure, len(cs))
				}
				for i, c := range cs {
					if got := strings.HasPrefix(c.Name, HostPrefix); got != secure {
						t.Errorf("%s secure=%v: written as %q", name, secure, c.Name)
					}
					if strings.HasPrefix(c.Name, HostPrefix) && (!c.Secure || c.Path != "/" || c.Domain != "") {
						t.Errorf("%s: __Host- cookie with Secure %v, Path %q, Domain %q", c.Name, c.Secure, c.Path, c.Domain)
					}
					if c.Secure != secure || c.Path != "/" || c.Domain != "" || !c.HttpOnly || c.SameSite != same {
						t.Errorf("%s secure=%v: Secure %v Path %q Domain %q HttpOnly %v SameSite %v", c.Name, secure, c.Secure, c.Path, c.Domain, c.HttpOnly, c.SameSite)
					}
					want := []int{90, -1}[i]
					if c.MaxAge != want {
						t.Errorf("%s write %d: Max-Age %d, want %d", c.Name, i, c.MaxAge, want)
					}
				}
				if cs[1].Value != "" {
					t.Errorf("%s: clearing left value %q", cs[1].Name, cs[1].Value)
				}
			}
		}
	}
}
