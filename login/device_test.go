package login

import (
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/password"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/gormstore"
	"github.com/proctorhq/proctor/templates"
)

// spendAccountBudget fails Ann's password DefaultAccountLimit.Max times from as many
// addresses, as the reported lockout attack does.
func spendAccountBudget(t *testing.T, e *env) {
	t.Helper()
	for i := 0; i < DefaultAccountLimit.Max; i++ {
		b := e.browser(hostA, false)
		b.addr = []string{"203.0.113.1", "203.0.113.2", "203.0.113.3", "203.0.113.4", "203.0.113.5"}[i%5]
		if res := b.login(annEmail, "attacker guess", "/x"); res.StatusCode != http.StatusOK {
			t.Fatalf("attacker attempt %d: %d", i+1, res.StatusCode)
		}
	}
}

// TestKnownDeviceSignsInDuringLockout: five wrong passwords from five addresses lock strangers
// out of Ann's account, but not Ann in the browser she signed in with before; the attackers
// stay throttled.
func TestKnownDeviceSignsInDuringLockout(t *testing.T) {
	e := newEnv(t, nil)
	ann := e.browser(hostA, true)
	ann.mustLogin()
	c := ann.cookies[SecureDeviceCookie]
	if c == nil {
		t.Fatal("sign-in set no known-device cookie")
	}
	if !c.HttpOnly || !c.Secure || c.SameSite != http.SameSiteStrictMode || c.Path != "/" || c.MaxAge != int(DefaultDeviceLifetime/time.Second) {
		t.Errorf("known-device cookie flags: %+v", c)
	}
	if strings.Contains(c.Value, "ann") {
		t.Error("the cookie holds the e-mail")
	}

	spendAccountBudget(t, e)
	stranger := e.browser(hostA, true)
	if res := stranger.login(annEmail, annPassword, "/x"); res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("right password from a new browser during the lockout: %d, want 429", res.StatusCode)
	}
	delete(ann.cookies, SecureSessionCookie)
	if res := ann.login(annEmail, annPassword, "/x"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("right password from Ann's known browser during the lockout: %d, want 303\n%s", res.StatusCode, res.body)
	}
	// Ann's success did not reset the strangers' count.
	if res := stranger.login(annEmail, annPassword, "/x"); res.StatusCode != http.StatusTooManyRequests {
		t.Errorf("a new browser after Ann signed in: %d, want 429", res.StatusCode)
	}
}

// TestKnownDeviceBudget: a known-device cookie is not an unlimited oracle. Its own budget
// (DefaultDeviceLimit) takes its failures; once spent, the browser is a stranger again, charged
// to the account's budget, which attackers spent. It is honoured only for its own account and
// only as signed.
func TestKnownDeviceBudget(t *testing.T) {
	e := newEnv(t, nil)
	hash, err := password.Hash("bob's password", cheap)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.CreateMember(t.Context(), storage.Member{Email: "bob@example.com", Name: "Bob", PasswordHash: hash}); err != nil {
		t.Fatal(err)
	}
	stolen := e.h.deviceCookieFor(annEmail)
	spendAccountBudget(t, e)

	withCookie := func(v string) *browser {
		b := e.browser(hostA, false)
		b.addr = "198.51.100.9"
		b.cookies[DeviceCookie] = &http.Cookie{Name: DeviceCookie, Value: v}
		return b
	}
	b := withCookie(stolen)
	for i := 0; i < DefaultDeviceLimit.Max; i++ {
		if res := b.login(annEmail, "thief guess", "/x"); res.StatusCode != http.StatusOK {
			t.Fatalf("guess %d with the cookie: %d", i+1, res.StatusCode)
		}
	}
	if res := b.login(annEmail, annPassword, "/x"); res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("after the device's budget: %d, want 429", res.StatusCode)
	}

	// A cookie for Ann is nothing to Bob's account: with Bob's budget spent, his password and
	// an unspent cookie of Ann's are refused, while the same cookie lets Ann in.
	for i := 0; i < DefaultAccountLimit.Max; i++ {
		if res := e.browser(hostA, false).login("bob@example.com", "guess", "/x"); res.StatusCode != http.StatusOK {
			t.Fatalf("bob guess %d: %d", i+1, res.StatusCode)
		}
	}
	unspent := e.h.deviceCookieFor(annEmail)
	if res := withCookie(unspent).login("bob@example.com", "bob's password", "/x"); res.StatusCode != http.StatusTooManyRequests {
		t.Errorf("Ann's cookie let Bob's account in during its lockout: %d", res.StatusCode)
	}
	if res := withCookie(unspent).login(annEmail, annPassword, "/x"); res.StatusCode != http.StatusSeeOther {
		t.Errorf("an unspent genuine cookie for Ann: %d, want 303", res.StatusCode)
	}

	// Tampered, junk or expired cookies are not honoured.
	raw, _ := base64.RawURLEncoding.DecodeString(e.h.deviceCookieFor(annEmail))
	raw[len(raw)-1] ^= 1
	for name, v := range map[string]string{
		"tampered": base64.RawURLEncoding.EncodeToString(raw),
		"junk":     "not-a-cookie",
	} {
		if res := withCookie(v).login(annEmail, annPassword, "/x"); res.StatusCode != http.StatusTooManyRequests {
			t.Errorf("%s cookie: %d, want 429", name, res.StatusCode)
		}
	}
	old := e.h.deviceCookieFor(annEmail)
	e.clock.Advance(DefaultDeviceLifetime)
	spendAccountBudget(t, e) // the account's window ended with the clock's advance
	if res := withCookie(old).login(annEmail, annPassword, "/x"); res.StatusCode != http.StatusTooManyRequests {
		t.Errorf("expired cookie: %d, want 429", res.StatusCode)
	}
}

// deviceCookieFor issues a known-device cookie for email as a sign-in would, and returns its
// value.
func (h *Handler) deviceCookieFor(email string) string {
	rec := httptest.NewRecorder()
	h.setKnownDevice(rec, false, accountDigestBytes(email))
	for _, c := range rec.Result().Cookies() {
		if c.Name == DeviceCookie {
			return c.Value
		}
	}
	return ""
}

// TestUnlockLiftsLockout: `proctor members unlock` (UnlockAccount on the store) lets the member
// in again from a new browser, at a server whose limiter it cannot reach, and the account's
// budget starts afresh rather than being lifted for good.
func TestUnlockLiftsLockout(t *testing.T) {
	for name, newLimiter := range limiters(t) {
		t.Run(name, func(t *testing.T) {
			var unlocks Unlocks
			e := newEnv(t, func(d *Deps) {
				d.Limiter = newLimiter(t)
				unlocks = d.Store.(*countingStore).Store.(*gormstore.Store)
				d.Unlocks = unlocks
			})
			spendAccountBudget(t, e)
			b := e.browser(hostA, false)
			if res := b.login(annEmail, annPassword, "/x"); res.StatusCode != http.StatusTooManyRequests {
				t.Fatalf("locked: %d, want 429", res.StatusCode)
			}
			if err := UnlockAccount(t.Context(), unlocks, " ANN@example.com", e.clock.Now()); err != nil {
				t.Fatal(err)
			}
			if res := b.login(annEmail, annPassword, "/x"); res.StatusCode != http.StatusSeeOther {
				t.Fatalf("after unlock: %d, want 303", res.StatusCode)
			}
			spendAccountBudget(t, e)
			if res := e.browser(hostA, false).login(annEmail, annPassword, "/x"); res.StatusCode != http.StatusTooManyRequests {
				t.Errorf("strangers after the unlock are limited again: %d, want 429", res.StatusCode)
			}
		})
	}
}

// FuzzKnownDevice: any cookie value is read without panicking, and a genuine cookie with any
// byte changed is not honoured.
func FuzzKnownDevice(f *testing.F) {
	tpl, err := templates.New()
	if err != nil {
		f.Fatal(err)
	}
	h, err := New(Deps{Store: &countingStore{}, Templates: tpl, Secret: config.Secret("0123456789abcdef0123456789abcdef")})
	if err != nil {
		f.Fatal(err)
	}
	// Each fuzzing process issues its own genuine cookie (the nonce is random); the tampering
	// is applied to that one.
	genuine, _ := base64.RawURLEncoding.DecodeString(h.deviceCookieFor(annEmail))
	digest := accountDigestBytes(annEmail)
	f.Add("", uint(0), byte(1))
	f.Add(strings.Repeat("A", base64.RawURLEncoding.EncodedLen(deviceLen)), uint(17), byte(0x80))
	f.Add("not a cookie", uint(deviceLen-1), byte(0xff))
	honoured := func(v string) bool {
		req := httptest.NewRequest(http.MethodPost, "http://"+hostA+LoginPath, nil)
		req.AddCookie(&http.Cookie{Name: DeviceCookie, Value: v})
		_, ok := h.knownDevice(req, digest)
		return ok
	}
	f.Fuzz(func(t *testing.T, v string, pos uint, x byte) {
		honoured(v)
		if !honoured(base64.RawURLEncoding.EncodeToString(genuine)) {
			t.Fatal("the genuine cookie is not honoured")
		}
		if x == 0 {
			return
		}
		tampered := append([]byte(nil), genuine...)
		tampered[pos%uint(len(tampered))] ^= x
		if honoured(base64.RawURLEncoding.EncodeToString(tampered)) {
			t.Errorf("honoured a cookie with byte %d changed", pos%uint(len(tampered)))
		}
	})
}

// TestAccountLockedAndUnlock: the read-only check the member administration pages use says
// locked exactly when the sign-in page refuses the account, charges nothing, and the handler's
// UnlockAccount lifts it as the CLI's does.
func TestAccountLockedAndUnlock(t *testing.T) {
	for name, newLimiter := range limiters(t) {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, func(d *Deps) {
				d.Limiter = newLimiter(t)
				d.Unlocks = d.Store.(*countingStore).Store.(*gormstore.Store)
			})
			locked := func(want bool) {
				t.Helper()
				for range 3 { // asking never charges
					if got, err := e.h.AccountLocked(t.Context(), " Ann@Example.com "); err != nil || got != want {
						t.Fatalf("AccountLocked = %v, %v; want %v", got, err, want)
					}
				}
			}
			locked(false)
			spendAccountBudget(t, e)
			locked(true)
			if err := e.h.UnlockAccount(t.Context(), annEmail); err != nil {
				t.Fatal(err)
			}
			locked(false)
			if res := e.browser(hostA, false).login(annEmail, annPassword, "/x"); res.StatusCode != http.StatusSeeOther {
				t.Fatalf("after the unlock: %d, want 303", res.StatusCode)
			}
		})
	}
	e := newEnv(t, nil)
	if err := e.h.UnlockAccount(t.Context(), annEmail); !errors.Is(err, ErrNoUnlocks) {
		t.Errorf("UnlockAccount without Unlocks: %v", err)
	}
}
