package login

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"net/http"
	"time"
)

// Known-device cookie names. A browser in which a member signed in gets this cookie; a later
// sign-in from it for the same account is charged to the cookie's own budget instead of the
// account's, so that strangers spending the account's budget do not lock its owner out
// (OWASP's "device cookies"). Over https the "__Host-" prefix keeps sibling hosts from planting
// one.
const (
	DeviceCookie       = "proctor_device"
	SecureDeviceCookie = HostPrefix + DeviceCookie
)

// DefaultDeviceLifetime is how long a known-device cookie is honoured after the sign-in that
// issued it. Every successful sign-in issues a fresh one.
const DefaultDeviceLifetime = 90 * 24 * time.Hour

// DefaultDeviceLimit is each known-device cookie's own failure budget: the same as an
// account's, so that a stolen cookie is worth no more guesses than the account budget it
// stands in for, and once it is spent the browser is an unknown one again.
var DefaultDeviceLimit = Limit{Max: 5, Window: 15 * time.Minute}

// Layout of a known-device cookie's value before base64url: version, the account's digest
// (accountDigest), a random nonce naming this cookie's budget, the expiry in Unix seconds, and
// an HMAC-SHA256 of all of those under a key derived from the system secret.
const (
	deviceVersion = 1
	digestLen     = 16
	nonceLen      = 16
	devicePayload = 1 + digestLen + nonceLen + 8
	deviceLen     = devicePayload + sha256.Size
)

// device is a verified known-device cookie.
type device struct {
	nonce []byte
}

// limitKey names the device's own failure budget.
func (d device) limitKey() string {
	return "device:" + base64.RawURLEncoding.EncodeToString(d.nonce)
}

// knownDevice returns the request's known-device cookie if it is genuine, unexpired and was
// issued for the account digest names.
func (h *Handler) knownDevice(r *http.Request, digest []byte) (device, bool) {
	c, err := r.Cookie(deviceCookieName(secureCookies(r)))
	if err != nil || len(c.Value) != base64.RawURLEncoding.EncodedLen(deviceLen) {
		return device{}, false
	}
	raw, err := base64.RawURLEncoding.DecodeString(c.Value)
	if err != nil || len(raw) != deviceLen {
		return device{}, false
	}
	payload, sum := raw[:devicePayload], raw[devicePayload:]
	if !hmac.Equal(sum, h.deviceMAC(payload)) || payload[0] != deviceVersion {
		return device{}, false
	}
	if subtle.ConstantTimeCompare(payload[1:1+digestLen], digest) != 1 {
		return device{}, false
	}
	expires := time.Unix(int64(binary.BigEndian.Uint64(payload[1+digestLen+nonceLen:])), 0)
	if !h.now().Before(expires) {
		return device{}, false
	}
	return device{nonce: payload[1+digestLen : 1+digestLen+nonceLen]}, true
}

// setKnownDevice issues a fresh known-device cookie for the account digest names, replacing
// any the browser holds (one account per browser: the last one signed in).
func (h *Handler) setKnownDevice(w http.ResponseWriter, secure bool, digest []byte) {
	payload := make([]byte, devicePayload, deviceLen)
	payload[0] = deviceVersion
	copy(payload[1:], digest)
	// crypto/rand.Read never fails (it aborts the program if the system has no randomness).
	_, _ = rand.Read(payload[1+digestLen : 1+digestLen+nonceLen])
	binary.BigEndian.PutUint64(payload[1+digestLen+nonceLen:], uint64(h.now().Add(h.deviceLifetime).Unix()))
	value := append(payload, h.deviceMAC(payload)...)
	SetCookie(w, secure, DeviceCookie, base64.RawURLEncoding.EncodeToString(value), h.deviceLifetime, http.SameSiteStrictMode)
}

func (h *Handler) deviceMAC(payload []byte) []byte { return MAC(h.deviceKey, payload) }

func deviceCookieName(secure bool) string { return CookieName(secure, DeviceCookie) }
