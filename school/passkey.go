package school

import (
	"net"
	"net/url"
)

// PasskeyRPID returns the WebAuthn relying party id of the school's passkeys: the host of its
// origin, without the port. Browsers refuse an IP address as a relying party id, so a school
// served at one (http://127.0.0.1:8080 in development) has no passkeys: ok is false.
//
// Being the school's own host, and not a parent domain its schools share, the id keeps one
// school's passkeys useless at another: an authenticator signs over a hash of the id, and each
// school checks for its own.
func (t *School) PasskeyRPID() (id string, ok bool) {
	u, err := url.Parse(t.Origin)
	if err != nil {
		return "", false
	}
	host := u.Hostname()
	if host == "" || net.ParseIP(host) != nil {
		return "", false
	}
	return host, true
}
