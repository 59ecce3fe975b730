package login

import (
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"time"
)

// CSRFField is the form field every form of these pages carries.
const CSRFField = "csrf_token"

// Login CSRF cookie names. The sign-in form has no session to bind its token to, so it uses a
// double submit: a random value in this cookie and its HMAC in the form. Over https the
// "__Host-" prefix keeps a sibling host from planting a value of its own (secureCookies decides).
const (
	LoginCSRFCookie       = "proctor_csrf"
	SecureLoginCSRFCookie = HostPrefix + LoginCSRFCookie
)

// loginCSRFLifetime is how long a sign-in form stays usable.
const loginCSRFLifetime = 2 * time.Hour

// CSRFToken returns the CSRF token of every form a signed-in member submits: HMAC("csrf" +
// session id). It is stable for the session, so several open tabs all work, and an attacker
// who cannot read the session's pages cannot compute it.
func (h *Handler) CSRFToken(s Session) string {
	return h.mac("csrf" + s.ID)
}

// CheckCSRF reports whether the POSTed csrf_token is s's token, compared in constant time.
func (h *Handler) CheckCSRF(r *http.Request, s Session) bool {
	if s.ID == "" {
		return false
	}
	got := r.PostFormValue(CSRFField)
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(h.CSRFToken(s))) == 1
}

// loginCSRF returns the sign-in form's token, setting the cookie it is checked against unless
// the browser already holds a usable one (several tabs, a retried form).
func (h *Handler) loginCSRF(w http.ResponseWriter, r *http.Request) string {
	secure := secureCookies(r)
	name := loginCSRFCookieName(secure)
	if c, err := r.Cookie(name); err == nil && WellFormedToken(c.Value) {
		return h.loginCSRFToken(c.Value)
	}
	v := NewToken()
	SetCookie(w, secure, LoginCSRFCookie, v, loginCSRFLifetime, http.SameSiteStrictMode)
	return h.loginCSRFToken(v)
}

// checkLoginCSRF verifies the double submit: the cookie is present and the form carries its
// HMAC. Another site can make the browser post the form but can neither read the cookie nor
// compute the HMAC.
func (h *Handler) checkLoginCSRF(r *http.Request) bool {
	c, err := r.Cookie(loginCSRFCookieName(secureCookies(r)))
	if err != nil || !WellFormedToken(c.Value) {
		return false
	}
	got := r.PostFormValue(CSRFField)
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(h.loginCSRFToken(c.Value))) == 1
}

// clearLoginCSRF drops the sign-in form's cookie once it has served.
func clearLoginCSRF(w http.ResponseWriter, secure bool) {
	ClearCookie(w, secure, LoginCSRFCookie, http.SameSiteStrictMode)
}

func (h *Handler) loginCSRFToken(cookie string) string {
	// The prefix keeps this token from ever equalling a session's ("csrf" + hex id).
	return h.mac("login-csrf\x00" + cookie)
}

func loginCSRFCookieName(secure bool) string { return CookieName(secure, LoginCSRFCookie) }

func (h *Handler) mac(msg string) string {
	return base64.RawURLEncoding.EncodeToString(MAC(h.csrfKey, []byte(msg)))
}
