package login

import (
	"net/http"
	"net/netip"
)

// FormToken returns the CSRF token of a form shown before anyone is signed in (the sign-in
// form, the forgotten-password form, the pages a one-time link opens), setting the cookie it
// is checked against unless the browser already holds a usable one. It is the sign-in form's
// double submit: one implementation for every such form.
func (h *Handler) FormToken(w http.ResponseWriter, r *http.Request) string {
	return h.loginCSRF(w, r)
}

// CheckFormToken verifies a form's FormToken: the cookie is present and the form's csrf_token
// is its HMAC, compared in constant time.
func (h *Handler) CheckFormToken(r *http.Request) bool {
	return h.checkLoginCSRF(r)
}

// AddressKey names a client address for a Limiter: "address:" and the address, or its /64 for
// IPv6 (a client usually holds a whole /64). Other budgets per address prefix it with their own
// name.
func AddressKey(a netip.Addr) string { return addressLimitKey(a) }

// PasskeyLoginPath is the passwordless sign-in with a passkey (package passkey), which the
// sign-in form links to.
const PasskeyLoginPath = "/login/passkey"

// SecureCookies reports whether r's cookies are the Secure, "__Host-" prefixed ones: other
// packages' cookies (a passkey ceremony's) follow the session cookie's rule.
func SecureCookies(r *http.Request) bool { return secureCookies(r) }
