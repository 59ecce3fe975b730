package login

import (
	"net/http"
	"time"
)

// SetCookie writes one of these pages' cookies: named by CookieName (so "__Host-" exactly when
// secure), for Path "/", HttpOnly, Secure when secure, with no Domain (host-only), for maxAge
// (whole seconds, rounded down, as Max-Age has always been written here). The "__Host-" prefix
// obliges the browser to refuse the cookie unless it is Secure, host-only and for "/"; writing
// every cookie here keeps those three in one place. Only the name, value, lifetime and SameSite
// differ between the cookies, and only those are the caller's.
func SetCookie(w http.ResponseWriter, secure bool, name, value string, maxAge time.Duration, sameSite http.SameSite) {
	writeCookie(w, secure, name, value, int(maxAge/time.Second), sameSite)
}

// ClearCookie tells the browser to drop a cookie SetCookie wrote: same name, path and
// attributes (a browser matches a cookie by name, domain and path), Max-Age 0 on the wire.
func ClearCookie(w http.ResponseWriter, secure bool, name string, sameSite http.SameSite) {
	writeCookie(w, secure, name, "", -1, sameSite)
}

func writeCookie(w http.ResponseWriter, secure bool, name, value string, maxAge int, sameSite http.SameSite) {
	http.SetCookie(w, &http.Cookie{
		Name:     CookieName(secure, name),
		Value:    value,
		Path:     "/", // "__Host-" requires it
		MaxAge:   maxAge,
		HttpOnly: true,
		Secure:   secure,
		SameSite: sameSite,
	})
}
