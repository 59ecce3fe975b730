package login

import (
	"context"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/i18n"
	"github.com/proctorhq/proctor/password"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/templates"
)

// Messages of the sign-in page, in English: the page writes them in the request's language
// from the catalogue (signin.failed, signin.limited, signin.expired, signin.incomplete,
// signin.busy), and these are what its English says. The failure message is the same whether
// the e-mail is unknown or the password wrong, so the page cannot be used to find out who has
// an account.
const (
	MsgLoginFailed     = "The e-mail or password is not right."
	MsgLoginLimited    = "Too many failed sign-in attempts. Please wait a few minutes and try again."
	MsgLoginExpired    = "This sign-in form has expired. Please try again."
	MsgLoginIncomplete = "Enter your e-mail address and your password."
	MsgLoginBusy       = "Signing in is very busy right now. Please try again in a moment."
)

// maxEmail is the longest e-mail address SMTP can carry (RFC 5321 section 4.5.3.1.3); longer
// input cannot be an account and is not looked up.
const maxEmail = 254

// SignInPage adapts a page that signs a member in (the password form, the passwordless one):
// fn gets the request's school and the query's return_to, made safe; a member who is already
// signed in is sent on to return_to instead, and fn does not run.
func (h *Handler) SignInPage(fn func(w http.ResponseWriter, r *http.Request, t *school.School, returnTo string) error) RequestPage {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, err := school.FromContext(r.Context())
		if err != nil {
			return err
		}
		returnTo := SafeReturnTo(r.URL.Query().Get("return_to"))
		if _, ok := h.Current(r); ok {
			SeeOther(w, returnTo)
			return nil
		}
		return fn(w, r, t, returnTo)
	}
}

// loginForm shows the sign-in form (through SignInPage).
func (h *Handler) loginForm(w http.ResponseWriter, r *http.Request, t *school.School, returnTo string) error {
	page := templates.LoginPage{School: t.Name, ReturnTo: returnTo, CSRFToken: h.loginCSRF(w, r)}
	h.renderLogin(w, r, http.StatusOK, page)
	return nil
}

// login checks the form and signs the member in. Every outcome that depends on the account
// (unknown e-mail, wrong password, unusable stored hash) costs one argon2id verification and
// ends on the same page with the same status. The exception is a member whose hash was
// imported from another platform (bcrypt, PBKDF2) and who has not signed in since: checking
// it costs what that hash costs, until the first sign-in rehashes it.
func (h *Handler) login(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	t, info, err := postedForm(r)
	if err != nil {
		return err
	}
	page := templates.LoginPage{School: t.Name, ReturnTo: SafeReturnTo(r.PostForm.Get("return_to"))}
	loc := i18n.FromContext(ctx)
	if !h.checkLoginCSRF(r) {
		h.log.InfoContext(ctx, "sign-in refused: CSRF check failed", "request_id", info.ID, "school_id", t.SchoolID)
		page.CSRFToken, page.Message = h.loginCSRF(w, r), loc.Text("signin.expired")
		h.renderLogin(w, r, http.StatusForbidden, page)
		return nil
	}
	page.CSRFToken = h.loginCSRF(w, r)

	email := storage.NormaliseEmail(r.PostForm.Get("email"))
	pw := r.PostForm.Get("password")
	if email == "" || pw == "" {
		page.Message = loc.Text("signin.incomplete")
		h.renderLogin(w, r, http.StatusOK, page)
		return nil
	}

	digest := accountDigestBytes(email)
	var unlockedAt time.Time
	if h.unlocks != nil {
		if unlockedAt, err = h.unlocks.AccountUnlockedAt(ctx, base64.RawURLEncoding.EncodeToString(digest)); err != nil {
			return fmt.Errorf("login: read account unlock: %w", err)
		}
	}
	dev, known := h.knownDevice(r, digest)
	charged, err := h.charge(ctx, dev, known, accountLimitKey(digest, unlockedAt), addressLimitKey(info.ClientAddr))
	if err != nil {
		return &PageError{Status: http.StatusServiceUnavailable, View: viewUnavailable, Err: fmt.Errorf("login: rate limiter: %w", err)}
	}
	if charged == nil {
		// Refused before any lookup or hashing: a limited attacker gets no answer about the
		// password and costs us nothing.
		h.log.WarnContext(ctx, "sign-in refused: rate limited", "request_id", info.ID, "school_id", t.SchoolID, "client", info.ClientAddr.String())
		h.noteSignIn(r, audit.ResultThrottled, 0)
		SetRetryAfter(w, h.accountLimit.Window, h.addressLimit.Window, h.deviceLimit.Window)
		page.Message = loc.Text("signin.limited")
		h.renderLogin(w, r, http.StatusTooManyRequests, page)
		return nil
	}

	if !h.gate.acquire(ctx) {
		// Every hash slot is taken: the attempt is not evaluated, so it is not charged either.
		h.refund(ctx, charged...)
		h.log.WarnContext(ctx, "sign-in refused: password hashing is at capacity", "request_id", info.ID, "school_id", t.SchoolID)
		w.Header().Set("Retry-After", "1")
		page.Message = loc.Text("signin.busy")
		h.renderLogin(w, r, http.StatusServiceUnavailable, page)
		return nil
	}
	m, ok, err := h.checkPassword(ctx, email, pw)
	if err == nil && ok {
		// In the slot still: the new hash costs what a verification does.
		h.rehash(ctx, m, pw)
	}
	h.gate.release()
	if err != nil {
		h.refund(ctx, charged...)
		return err
	}
	if !ok {
		// The attempt stays charged to every key Take charged: that is what a failure costs.
		h.log.InfoContext(ctx, "sign-in failed", "request_id", info.ID, "school_id", t.SchoolID, "client", info.ClientAddr.String(), "known_device", known)
		h.noteSignIn(r, audit.ResultFailure, m.ID)
		page.Message = loc.Text("signin.failed")
		h.renderLogin(w, r, http.StatusOK, page)
		return nil
	}

	// A sign-in that succeeded was no failure: every charge is given back. The account's or the
	// device's count is forgotten besides (its owner just proved they know the password); the
	// address keeps its earlier failures, so one address guessing many accounts stays limited.
	// A success from a known device leaves the account's count alone, so that strangers who
	// spent it stay throttled.
	if err := h.limiter.Reset(ctx, charged[0]); err != nil {
		h.log.ErrorContext(ctx, "rate limiter: reset", "request_id", info.ID, "err", err)
	}
	h.refund(ctx, charged[1:]...)
	// A member with a second factor at this school is asked for it before any session.
	if asked, err := h.askSecondFactor(ctx, w, r, m, page.ReturnTo); err != nil || asked {
		h.setKnownDevice(w, secureCookies(r), digest)
		return err
	}
	if err := h.StartSession(ctx, w, r, m); err != nil {
		return err
	}
	h.setKnownDevice(w, secureCookies(r), digest)
	clearLoginCSRF(w, secureCookies(r))
	h.log.InfoContext(ctx, "signed in", "request_id", info.ID, "school_id", t.SchoolID, "member_id", m.ID, "known_device", known)
	h.noteSignIn(r, audit.ResultSuccess, m.ID)
	if h.onSignIn != nil {
		m.PasswordHash = ""
		h.onSignIn(ctx, r, m)
	}
	SeeOther(w, page.ReturnTo)
	return nil
}

// charge takes one attempt from the budgets this sign-in spends, before the password is
// checked: the known device's own budget if the browser holds a valid cookie for the account
// and the device's budget is not spent, the account's otherwise, and the client address's in
// every case. It returns the keys it charged, the account's or device's first, or nil if a
// budget was spent (then nothing stays charged).
func (h *Handler) charge(ctx context.Context, dev device, known bool, accountKey, addressKey string) ([]string, error) {
	first, ok := "", false
	if known {
		var err error
		if ok, err = h.limiter.Take(ctx, dev.limitKey(), h.deviceLimit); err != nil {
			return nil, err
		}
		first = dev.limitKey()
	}
	if !ok {
		// No known device, or one whose own budget is spent: the browser is a stranger's.
		var err error
		if ok, err = h.limiter.Take(ctx, accountKey, h.accountLimit); err != nil || !ok {
			return nil, err
		}
		first = accountKey
	}
	ok, err := h.limiter.Take(ctx, addressKey, h.addressLimit)
	if err != nil || !ok {
		h.refund(ctx, first)
		return nil, err
	}
	return []string{first, addressKey}, nil
}

// Refund gives back to l the charges under keys of an attempt that was not a failure, logging
// on log what fails: a lost refund costs the member one attempt of the budget, no more.
func Refund(ctx context.Context, l Limiter, log *slog.Logger, keys ...string) {
	for _, k := range keys {
		if err := l.Refund(ctx, k); err != nil {
			log.ErrorContext(ctx, "rate limiter: refund", "request_id", edge.FromContext(ctx).ID, "err", err)
		}
	}
}

// refund is Refund on the handler's limiter.
func (h *Handler) refund(ctx context.Context, keys ...string) {
	Refund(ctx, h.limiter, h.log, keys...)
}

// checkPassword finds the member and verifies the password. An unknown e-mail or a stored hash
// that cannot be read is verified against a dummy hash instead, so the time taken does not
// tell them apart from a wrong password. Only a store failure is an error.
func (h *Handler) checkPassword(ctx context.Context, email, pw string) (storage.Member, bool, error) {
	var m storage.Member
	err := storage.ErrNotFound
	if len(email) <= maxEmail {
		m, err = h.store.GetMemberByEmail(ctx, email)
	}
	switch {
	case err == nil && password.IsHash(m.PasswordHash):
		return m, h.verify(pw, m.PasswordHash) == nil, nil
	case err == nil:
		h.log.WarnContext(ctx, "member has no usable password hash", "request_id", edge.FromContext(ctx).ID, "member_id", m.ID)
		_ = password.VerifyDummy(pw)
		return storage.Member{}, false, nil
	case errors.Is(err, storage.ErrNotFound):
		_ = password.VerifyDummy(pw)
		return storage.Member{}, false, nil
	default:
		return storage.Member{}, false, fmt.Errorf("login: look up member: %w", err)
	}
}

// errHashChanged aborts a rehash whose member's hash changed after it was verified.
var errHashChanged = errors.New("login: the password hash changed since it was verified")

// rehash replaces the hash pw was just verified against by an argon2id hash at
// password.Default when password.NeedsRehash says so: hashes imported from other platforms
// (bcrypt, PBKDF2) are replaced as their members sign in, the
// only time the password is known. The new hash is stored only if the member's hash is still
// the one verified: a password changed meanwhile wins. A failure is logged and the sign-in goes
// on, since the old hash still verifies.
func (h *Handler) rehash(ctx context.Context, m storage.Member, pw string) {
	if !password.NeedsRehash(m.PasswordHash) {
		return
	}
	info := edge.FromContext(ctx)
	hash, err := password.Hash(pw, password.Default)
	if err == nil {
		_, err = h.store.UpdateMember(ctx, m.ID, func(cur storage.Member) (storage.Member, error) {
			if subtle.ConstantTimeCompare([]byte(cur.PasswordHash), []byte(m.PasswordHash)) != 1 {
				return cur, errHashChanged
			}
			cur.PasswordHash = hash
			return cur, nil
		})
	}
	switch {
	case err == nil:
		h.log.InfoContext(ctx, "password hash upgraded to argon2id", "request_id", info.ID, "member_id", m.ID)
	case errors.Is(err, errHashChanged):
		h.log.InfoContext(ctx, "password hash not upgraded: it changed during the sign-in", "request_id", info.ID, "member_id", m.ID)
	default:
		h.log.ErrorContext(ctx, "password hash not upgraded", "request_id", info.ID, "member_id", m.ID, "err", err)
	}
}

// signedIn is where a sign-in with no return_to ends.
func (h *Handler) signedIn(w http.ResponseWriter, r *http.Request) error {
	t, err := school.FromContext(r.Context())
	if err != nil {
		return err
	}
	s, ok := h.Current(r)
	if !ok {
		SeeOther(w, LoginPath)
		return nil
	}
	page := templates.SignedInPage{School: t.Name, MemberName: s.Member.Name, MemberEmail: s.Member.Email, CSRFToken: h.CSRFToken(s)}
	h.WritePage(w, r, http.StatusOK, PagePolicy, func(out io.Writer) error { return h.tpl.SignedIn(r.Context(), out, page) })
	return nil
}

func (h *Handler) renderLogin(w http.ResponseWriter, r *http.Request, status int, page templates.LoginPage) {
	// The way to a passkey sign-in (package passkey), where the school's host can have passkeys.
	if t, err := school.FromContext(r.Context()); err == nil {
		if _, ok := t.PasskeyRPID(); ok {
			page.PasskeyURL = WithReturnTo(PasskeyLoginPath, page.ReturnTo)
		}
	}
	h.WritePage(w, r, status, PagePolicy, func(out io.Writer) error { return h.tpl.Login(r.Context(), out, page) })
}

// addressLimitKey names a client address's failure count. An IPv6 client usually holds a whole
// /64 and could take a fresh address for every attempt, so IPv6 addresses count per /64.
func addressLimitKey(a netip.Addr) string {
	a = a.Unmap()
	switch {
	case !a.IsValid():
		return "address:unknown"
	case a.Is6():
		p, _ := a.Prefix(64)
		return "address:" + p.String()
	default:
		return "address:" + a.String()
	}
}
