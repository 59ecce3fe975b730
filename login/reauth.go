package login

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/proctorhq/proctor/i18n"
	"github.com/proctorhq/proctor/password"
)

// CurrentPasswordBudget bounds wrong current passwords per member over every form that asks
// for one (the account page's, the second factors' and the passkeys' pages): one budget, so
// that a stolen session cannot test guesses on each form in turn.
var CurrentPasswordBudget = Limit{Max: 5, Window: 15 * time.Minute}

// currentPasswordKey prefixes the member id in that budget's limiter key.
const currentPasswordKey = "account-password:"

// PasswordCheck is the outcome of CheckCurrentPassword.
type PasswordCheck int

// Outcomes of CheckCurrentPassword; Refusal words them.
const (
	PasswordRight   PasswordCheck = iota
	PasswordWrong                 // charged to the budget
	PasswordNone                  // the member has no usable password (not charged)
	PasswordLimited               // the budget is spent; nothing was checked
	PasswordMissing               // the form carried none; nothing was checked or charged
)

// Refusal is the status and the sentence, in the request's language, of a page refusing a form
// for c (0 and "" for PasswordRight): every page that asks for the current password says the
// same for the same outcome. A 429 also wants RetryCurrentPassword.
func (c PasswordCheck) Refusal(ctx context.Context) (status int, sentence string) {
	loc := i18n.FromContext(ctx)
	switch c {
	case PasswordRight:
		return 0, ""
	case PasswordMissing:
		return http.StatusOK, loc.Text("account.current_required")
	case PasswordNone:
		return http.StatusOK, loc.Text("account.no_password")
	case PasswordLimited:
		return http.StatusTooManyRequests, loc.Text("account.password_limit")
	}
	return http.StatusOK, loc.Text("account.current_wrong")
}

// CheckCurrentPassword verifies pw as the current password of member memberID, a signed-in
// member confirming a change to their account. An empty pw is PasswordMissing, neither checked
// nor charged. Otherwise the attempt is charged to CurrentPasswordBudget first; a wrong password
// stays charged, any other outcome is refunded. A member without a usable hash costs a dummy
// verification, like a wrong password. On PasswordRight it also returns the hash pw matched. Only a store or limiter failure, or hash slots that stay taken
// (hashgate.go), is an error; the last two are a *PageError of 503.
func (h *Handler) CheckCurrentPassword(ctx context.Context, memberID int64, pw string) (PasswordCheck, string, error) {
	if pw == "" {
		return PasswordMissing, "", nil
	}
	key := currentPasswordKey + strconv.FormatInt(memberID, 10)
	ok, err := h.limiter.Take(ctx, key, CurrentPasswordBudget)
	if err != nil {
		return 0, "", Unavailable(fmt.Errorf("login: rate limiter: %w", err))
	}
	if !ok {
		return PasswordLimited, "", nil
	}
	m, err := h.store.GetMember(ctx, memberID)
	if err != nil {
		h.refund(ctx, key)
		return 0, "", fmt.Errorf("login: get member: %w", err)
	}
	// The hash runs in one of the sign-in form's hash slots: a burst of these forms is bounded
	// in memory as sign-ins are (hashgate.go).
	if !h.gate.acquire(ctx) {
		// Nothing was checked, so nothing stays charged.
		h.refund(ctx, key)
		return 0, "", Unavailable(errHashBusy)
	}
	defer h.gate.release()
	if !password.IsHash(m.PasswordHash) {
		_ = password.VerifyDummy(pw)
		h.refund(ctx, key)
		return PasswordNone, "", nil
	}
	if h.verify(pw, m.PasswordHash) != nil {
		return PasswordWrong, "", nil
	}
	h.refund(ctx, key)
	return PasswordRight, m.PasswordHash, nil
}

// ConfirmCurrentPassword is CheckCurrentPassword for a form of member v's own page that
// changes what action names ("password change", say): pw is the current password the form
// carries. A refusal is logged and answered through refuse with its status and Refusal's words,
// and ok is false; on PasswordRight it returns the hash pw matched. Only what
// CheckCurrentPassword fails with is an error.
func (h *Handler) ConfirmCurrentPassword(ctx context.Context, v Visit, pw, action string, refuse func(status int, msg string) error) (hash string, ok bool, err error) {
	check, hash, err := h.CheckCurrentPassword(ctx, v.Session.Member.ID, pw)
	if err != nil {
		return "", false, err
	}
	if check != PasswordRight {
		status, msg := check.Refusal(ctx)
		h.log.InfoContext(ctx, action+" refused", v.LogArgs(ctx, "status", status)...)
		return "", false, refuse(status, msg)
	}
	return hash, true, nil
}

// HashNewPassword hashes pw, a new password chosen on a web form (the account page's password
// change, a password reset, an accepted invitation), at p in one of the sign-in form's hash
// slots: a burst of these forms is bounded in memory as sign-ins are (hashgate.go). With every
// slot taken for the wait the handler allows, it is a *PageError of 503, as CheckCurrentPassword
// answers then, and nothing is hashed.
func (h *Handler) HashNewPassword(ctx context.Context, pw string, p password.Params) (string, error) {
	if !h.gate.acquire(ctx) {
		return "", Unavailable(errHashBusy)
	}
	defer h.gate.release()
	return password.Hash(pw, p)
}

// RetryCurrentPassword sets the Retry-After of a page that answers 429 because
// CurrentPasswordBudget is spent (PasswordLimited): the budget's window, within which it is
// whole again. Every page with a form that asks for the current password answers so.
func RetryCurrentPassword(w http.ResponseWriter) {
	SetRetryAfter(w, CurrentPasswordBudget.Window)
}

// errHashBusy: every hash slot stayed taken for the wait the handler allows.
var errHashBusy = errors.New("login: password hashing is at capacity")
