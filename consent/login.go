package consent

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"strconv"
	"strings"

	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/password"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/templates"
	"github.com/proctorhq/proctor/tenant"
)

// Messages of the sign-in page. The failure message is the same whether the e-mail is unknown
// or the password wrong, so the page cannot be used to find out who has an account.
const (
	MsgLoginFailed     = "The e-mail or password is not right."
	MsgLoginLimited    = "Too many failed sign-in attempts. Please wait a few minutes and try again."
	MsgLoginExpired    = "This sign-in form has expired. Please try again."
	MsgLoginIncomplete = "Enter your e-mail address and your password."
)

// maxEmail is the longest e-mail address SMTP can carry (RFC 5321 section 4.5.3.1.3); longer
// input cannot be an account and is not looked up.
const maxEmail = 254

// loginForm shows the sign-in form, or sends a member who is already signed in on to
// return_to.
func (h *Handler) loginForm(w http.ResponseWriter, r *http.Request) error {
	t, err := tenant.FromContext(r.Context())
	if err != nil {
		return err
	}
	returnTo := SafeReturnTo(r.URL.Query().Get("return_to"))
	if _, ok := h.Current(r); ok {
		redirect(w, returnTo)
		return nil
	}
	page := templates.LoginPage{School: t.Name, ReturnTo: returnTo, CSRFToken: h.loginCSRF(w, r)}
	h.renderLogin(w, r, http.StatusOK, page)
	return nil
}

// login checks the form and signs the member in. Every outcome that depends on the account
// (unknown e-mail, wrong password, unusable stored hash) costs one argon2id verification and
// ends on the same page with the same status.
func (h *Handler) login(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	t, err := tenant.FromContext(ctx)
	if err != nil {
		return err
	}
	info := edge.FromContext(ctx)
	if err := r.ParseForm(); err != nil {
		return FormError(err)
	}
	page := templates.LoginPage{School: t.Name, ReturnTo: SafeReturnTo(r.PostForm.Get("return_to"))}
	if !h.checkLoginCSRF(r) {
		h.log.Info("sign-in refused: CSRF check failed", "request_id", info.ID, "school_id", t.SchoolID)
		page.CSRFToken, page.Message = h.loginCSRF(w, r), MsgLoginExpired
		h.renderLogin(w, r, http.StatusForbidden, page)
		return nil
	}
	page.CSRFToken = h.loginCSRF(w, r)

	email := strings.ToLower(strings.TrimSpace(r.PostForm.Get("email")))
	pw := r.PostForm.Get("password")
	if email == "" || pw == "" {
		page.Message = MsgLoginIncomplete
		h.renderLogin(w, r, http.StatusOK, page)
		return nil
	}

	accountKey, addressKey := accountLimitKey(email), addressLimitKey(info.ClientAddr)
	allowed, err := h.allowed(ctx, accountKey, addressKey)
	if err != nil {
		return &PageError{Status: http.StatusServiceUnavailable, View: viewUnavailable, Err: fmt.Errorf("consent: rate limiter: %w", err)}
	}
	if !allowed {
		// Refused before any lookup or hashing: a limited attacker gets no answer about the
		// password and costs us nothing.
		h.log.Warn("sign-in refused: rate limited", "request_id", info.ID, "school_id", t.SchoolID, "client", info.ClientAddr.String())
		w.Header().Set("Retry-After", strconv.Itoa(int(max(h.accountLimit.Window, h.addressLimit.Window).Seconds())))
		page.Message = MsgLoginLimited
		h.renderLogin(w, r, http.StatusTooManyRequests, page)
		return nil
	}

	m, ok, err := h.checkPassword(ctx, email, pw)
	if err != nil {
		return err
	}
	if !ok {
		for _, k := range []struct {
			key string
			l   Limit
		}{{accountKey, h.accountLimit}, {addressKey, h.addressLimit}} {
			if err := h.limiter.Fail(ctx, k.key, k.l); err != nil {
				h.log.Error("rate limiter: record failure", "request_id", info.ID, "err", err)
			}
		}
		h.log.Info("sign-in failed", "request_id", info.ID, "school_id", t.SchoolID, "client", info.ClientAddr.String())
		page.Message = MsgLoginFailed
		h.renderLogin(w, r, http.StatusOK, page)
		return nil
	}

	// The account's budget is for guessing its password; its owner just proved they know it.
	// The address keeps its count: one address guessing many accounts stays limited.
	if err := h.limiter.Reset(ctx, accountKey); err != nil {
		h.log.Error("rate limiter: reset", "request_id", info.ID, "err", err)
	}
	if err := h.startSession(ctx, w, r, m); err != nil {
		return err
	}
	clearLoginCSRF(w, info.Secure)
	h.log.Info("signed in", "request_id", info.ID, "school_id", t.SchoolID, "member_id", m.ID)
	redirect(w, page.ReturnTo)
	return nil
}

// allowed asks the limiter about both keys; either one exhausted refuses the attempt.
func (h *Handler) allowed(ctx context.Context, accountKey, addressKey string) (bool, error) {
	ok, err := h.limiter.Allow(ctx, accountKey, h.accountLimit)
	if err != nil || !ok {
		return false, err
	}
	return h.limiter.Allow(ctx, addressKey, h.addressLimit)
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
		return m, password.Verify(pw, m.PasswordHash) == nil, nil
	case err == nil:
		h.log.Warn("member has no usable password hash", "request_id", edge.FromContext(ctx).ID, "member_id", m.ID)
		_ = password.VerifyDummy(pw)
		return storage.Member{}, false, nil
	case errors.Is(err, storage.ErrNotFound):
		_ = password.VerifyDummy(pw)
		return storage.Member{}, false, nil
	default:
		return storage.Member{}, false, fmt.Errorf("consent: look up member: %w", err)
	}
}

// signedIn is where a sign-in with no return_to ends.
func (h *Handler) signedIn(w http.ResponseWriter, r *http.Request) error {
	t, err := tenant.FromContext(r.Context())
	if err != nil {
		return err
	}
	s, ok := h.Current(r)
	if !ok {
		redirect(w, LoginPath)
		return nil
	}
	page := templates.SignedInPage{School: t.Name, MemberName: s.Member.Name, MemberEmail: s.Member.Email, CSRFToken: h.CSRFToken(s)}
	h.writePage(w, r, http.StatusOK, PagePolicy, func(out io.Writer) error { return h.tpl.SignedIn(out, page) })
	return nil
}

func (h *Handler) renderLogin(w http.ResponseWriter, r *http.Request, status int, page templates.LoginPage) {
	h.writePage(w, r, status, PagePolicy, func(out io.Writer) error { return h.tpl.Login(out, page) })
}

// accountLimitKey names an e-mail's failure count by a hash, so that keys have a fixed size
// whatever was typed and a shared limiter's keys do not hold addresses.
func accountLimitKey(email string) string {
	sum := sha256.Sum256([]byte(email))
	return "account:" + base64.RawURLEncoding.EncodeToString(sum[:16])
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
