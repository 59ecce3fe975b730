package login

import (
	"context"
	"crypto/hmac"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/factor"
	"github.com/proctorhq/proctor/i18n"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/templates"
)

// FactorPath is the second sign-in step: after a correct password (a pending sign-in cookie),
// or for a signed-in member asked to enter their factor again (step_up=1).
const FactorPath = "/login/factor"

// FactorEnrolPath is the TOTP enrolment page (package mfa serves it): a school that requires
// its operators to have a second factor sends one without any there, with return_to.
const FactorEnrolPath = "/account/security/totp"

// Pending sign-in cookie names; "__Host-" as for the session cookie.
const (
	PendingCookie       = "proctor_pending_factor"
	SecurePendingCookie = HostPrefix + PendingCookie
)

// PendingLifetime is how long a password sign-in waits for its second factor.
const PendingLifetime = 5 * time.Minute

// StepUpWindow is how recent a second factor must be for a member who has one to grant
// operator scopes.
const StepUpWindow = 15 * time.Minute

// maxCode bounds the code field: a TOTP code is 6 digits, a recovery code 11 characters.
const maxCode = 64

// Messages of the second step, in English: the page writes them in the request's language
// from the catalogue (signin.factor.failed, signin.factor.limited, signin.form_expired).
const (
	MsgFactorFailed  = "That code is not right. Try again, or use one of your recovery codes."
	MsgFactorLimited = "Too many wrong codes. Please wait a few minutes and try again."
	MsgFactorExpired = "This form has expired. Please try again."
)

// SecondFactors is what the second sign-in step needs of members' second factors (package mfa
// implements it over factor.Store).
type SecondFactors interface {
	// Summary is what the member has enrolled at the context's school.
	Summary(ctx context.Context, memberID int64) (factor.Summary, error)
	// VerifyCode checks a TOTP code or a recovery code typed by the member and uses it up (a
	// TOTP step or a recovery code is accepted once). kind is what the code looked like
	// (factor.KindTOTP or factor.KindRecoveryCode), for the event, whether or not it matched.
	VerifyCode(ctx context.Context, memberID int64, code string) (kind factor.Kind, ok bool, err error)
	factor.SessionMarker
}

// pendingSignIn is what the pending cookie carries: who passed the password, at which school,
// with which methods so far, until when.
type pendingSignIn struct {
	SchoolID int64
	MemberID int64
	AMR      []string
	Expires  time.Time
}

// FactorChallenge is one request of the second step: whom it asks and why. The passkey step
// gets it from Challenge and ends with Passed or Failed, like the code form.
type FactorChallenge struct {
	MemberID int64
	// StepUp is set when a signed-in member is asked again (Session is theirs); otherwise the
	// member has passed the password only and has no session yet.
	StepUp   bool
	Session  Session
	ReturnTo string
	amr      []string
}

// factorLimitKey names a member's failure count at the second step.
func factorLimitKey(schoolID, memberID int64) string {
	return "factor:" + strconv.FormatInt(schoolID, 10) + ":" + strconv.FormatInt(memberID, 10)
}

// encodePending is the cookie value: base64url(payload) "." base64url(HMAC-SHA256), under a key
// derived for this cookie alone, so no other signed value of ours can stand in for it.
func (h *Handler) encodePending(p pendingSignIn) string {
	payload := fmt.Sprintf("%d|%d|%s|%d", p.SchoolID, p.MemberID, strings.Join(p.AMR, " "), p.Expires.Unix())
	body := base64.RawURLEncoding.EncodeToString([]byte(payload))
	return body + "." + base64.RawURLEncoding.EncodeToString(MAC(h.pendingKey, []byte(body)))
}

// maxPendingCookie bounds the cookie value read: a real one is under 100 bytes.
const maxPendingCookie = 256

var errBadPending = errors.New("login: no valid pending sign-in")

// parsePending checks a pending cookie's value: its signature, its school and its expiry at
// now. Anything else is errBadPending.
func parsePending(key []byte, v string, schoolID int64, now time.Time) (pendingSignIn, error) {
	if len(v) > maxPendingCookie {
		return pendingSignIn{}, errBadPending
	}
	body, sig, ok := strings.Cut(v, ".")
	if !ok {
		return pendingSignIn{}, errBadPending
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(got, MAC(key, []byte(body))) {
		return pendingSignIn{}, errBadPending
	}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return pendingSignIn{}, errBadPending
	}
	parts := strings.Split(string(raw), "|")
	if len(parts) != 4 {
		return pendingSignIn{}, errBadPending
	}
	school, err1 := strconv.ParseInt(parts[0], 10, 64)
	member, err2 := strconv.ParseInt(parts[1], 10, 64)
	exp, err3 := strconv.ParseInt(parts[3], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || member <= 0 || school != schoolID {
		return pendingSignIn{}, errBadPending
	}
	p := pendingSignIn{SchoolID: school, MemberID: member, AMR: strings.Fields(parts[2]), Expires: time.Unix(exp, 0)}
	if !now.Before(p.Expires) || p.Expires.Sub(now) > PendingLifetime {
		return pendingSignIn{}, errBadPending
	}
	return p, nil
}

func pendingCookieName(secure bool) string { return CookieName(secure, PendingCookie) }

// askSecondFactor is the end of a correct password for a member with a second factor at this
// school: instead of a session, a pending cookie and a redirect to the second step. It reports
// whether it asked; without SecondFactors, or for a member without a factor, it does nothing.
func (h *Handler) askSecondFactor(ctx context.Context, w http.ResponseWriter, r *http.Request, m storage.Member, returnTo string) (bool, error) {
	if h.factors == nil {
		return false, nil
	}
	t, err := school.FromContext(ctx)
	if err != nil {
		return false, err
	}
	sum, err := h.factors.Summary(ctx, m.ID)
	if err != nil {
		return false, fmt.Errorf("login: second factors of member %d: %w", m.ID, err)
	}
	if !sum.Any() {
		return false, nil
	}
	p := pendingSignIn{SchoolID: t.SchoolID, MemberID: m.ID, AMR: []string{factor.AMRPassword}, Expires: h.now().Add(PendingLifetime)}
	SetCookie(w, secureCookies(r), PendingCookie, h.encodePending(p), PendingLifetime, http.SameSiteLaxMode)
	h.log.InfoContext(ctx, "password accepted, second factor asked", "request_id", edge.FromContext(ctx).ID, "school_id", t.SchoolID, "member_id", m.ID)
	SeeOther(w, WithReturnTo(FactorPath, returnTo))
	return true, nil
}

// SignIn signs in a member who has just proven their password another way (a password reset, an
// accepted invitation): a session and a redirect to returnTo, or, for a member with a second
// factor at this school, the second step first.
func (h *Handler) SignIn(ctx context.Context, w http.ResponseWriter, r *http.Request, m storage.Member, returnTo string) error {
	asked, err := h.askSecondFactor(ctx, w, r, m, returnTo)
	if err != nil || asked {
		return err
	}
	if err := h.StartSession(ctx, w, r, m); err != nil {
		return err
	}
	SeeOther(w, returnTo)
	return nil
}

// Challenge reads the request's second step: with stepUp, the signed-in member's session; without,
// the pending cookie. ok is false when there is neither (the caller sends the browser to sign in).
func (h *Handler) Challenge(r *http.Request, stepUp bool, returnTo string) (FactorChallenge, bool, error) {
	ch := FactorChallenge{StepUp: stepUp, ReturnTo: SafeReturnTo(returnTo)}
	if stepUp {
		s, err := h.Load(r)
		if errors.Is(err, ErrNoSession) {
			return ch, false, nil
		}
		if err != nil {
			return ch, false, err
		}
		ch.MemberID, ch.Session, ch.amr = s.Member.ID, s, s.AMR
		if len(ch.amr) == 0 {
			ch.amr = []string{factor.AMRPassword}
		}
		return ch, true, nil
	}
	t, err := school.FromContext(r.Context())
	if err != nil {
		return ch, false, err
	}
	c, err := r.Cookie(pendingCookieName(secureCookies(r)))
	if err != nil {
		return ch, false, nil
	}
	p, err := parsePending(h.pendingKey, c.Value, t.SchoolID, h.now())
	if err != nil {
		return ch, false, nil
	}
	ch.MemberID, ch.amr = p.MemberID, p.AMR
	return ch, true, nil
}

// TakeFactorAttempt charges one attempt of the second step to the member's and the client
// address's budgets before anything is checked, as a password attempt is charged. It returns
// the keys it charged, or nil if a budget was spent (the attempt is refused: FactorThrottled).
func (h *Handler) TakeFactorAttempt(ctx context.Context, ch FactorChallenge) ([]string, error) {
	t, err := school.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	key := factorLimitKey(t.SchoolID, ch.MemberID)
	ok, err := h.limiter.Take(ctx, key, h.factorLimit)
	if err != nil || !ok {
		return nil, err
	}
	addr := addressLimitKey(edge.FromContext(ctx).ClientAddr)
	ok, err = h.limiter.Take(ctx, addr, h.addressLimit)
	if err != nil || !ok {
		h.refund(ctx, key)
		return nil, err
	}
	return []string{key, addr}, nil
}

// FactorPassed ends a second step that succeeded with the factor kind and the methods it adds
// (amr: factor.AMROTP, or a passkey's): the member's failures are forgotten, the address's
// charge given back, the event recorded; then a pending sign-in becomes a session (with the
// methods so far, these and "mfa"), or a step-up marks the session. It redirects to ReturnTo.
func (h *Handler) FactorPassed(w http.ResponseWriter, r *http.Request, ch FactorChallenge, charged []string, kind factor.Kind, detail string, amr ...string) error {
	loc, err := h.CompleteFactor(w, r, ch, charged, kind, detail, amr...)
	if err != nil {
		return err
	}
	SeeOther(w, loc)
	return nil
}

// CompleteFactor is FactorPassed without the redirect: it sets the cookies and returns where the
// browser goes, for a step that answers a script rather than a form (the passkey step's JSON).
func (h *Handler) CompleteFactor(w http.ResponseWriter, r *http.Request, ch FactorChallenge, charged []string, kind factor.Kind, detail string, amr ...string) (string, error) {
	ctx := r.Context()
	if len(charged) > 0 {
		if err := h.limiter.Reset(ctx, charged[0]); err != nil {
			h.log.ErrorContext(ctx, "rate limiter: reset", "request_id", edge.FromContext(ctx).ID, "err", err)
		}
		h.refund(ctx, charged[1:]...)
	}
	methods := slices.Clone(ch.amr)
	for _, a := range append(amr, factor.AMRMultiFactor) {
		if !slices.Contains(methods, a) {
			methods = append(methods, a)
		}
	}
	if detail == "" {
		detail = string(kind)
	}
	h.audit.Note(ctx, audit.MemberEvent(r, ch.MemberID, audit.KindFactorUsed, detail))
	now := h.now()
	if ch.StepUp {
		if err := h.factors.MarkSessionFactor(ctx, ch.Session.ID, methods, now); err != nil {
			return "", fmt.Errorf("login: mark session factor: %w", err)
		}
		h.log.InfoContext(ctx, "second factor entered again", "request_id", edge.FromContext(ctx).ID, "member_id", ch.MemberID)
		return ch.ReturnTo, nil
	}
	m, err := h.store.GetMember(ctx, ch.MemberID)
	if err != nil {
		return "", fmt.Errorf("login: member of a pending sign-in: %w", err)
	}
	if err := h.startSession(ctx, w, r, m, methods, now); err != nil {
		return "", err
	}
	secure := secureCookies(r)
	ClearCookie(w, secure, PendingCookie, http.SameSiteLaxMode)
	clearLoginCSRF(w, secure)
	h.log.InfoContext(ctx, "signed in with a second factor", "request_id", edge.FromContext(ctx).ID, "member_id", m.ID, "factor", string(kind))
	h.noteSignIn(r, audit.ResultSuccess, m.ID)
	if h.onSignIn != nil {
		m.PasswordHash = ""
		h.onSignIn(ctx, r, m)
	}
	return ch.ReturnTo, nil
}

// FactorFailed records a second step that failed (the charges stay: that is what a failure
// costs); FactorThrottled one refused by a spent budget.
func (h *Handler) FactorFailed(r *http.Request, ch FactorChallenge, detail string) {
	h.noteFactor(r, ch, audit.ResultFailure, detail)
}

// FactorThrottled: see FactorFailed.
func (h *Handler) FactorThrottled(w http.ResponseWriter, r *http.Request, ch FactorChallenge, detail string) {
	SetRetryAfter(w, h.factorLimit.Window, h.addressLimit.Window)
	h.noteFactor(r, ch, audit.ResultThrottled, detail)
}

func (h *Handler) noteFactor(r *http.Request, ch FactorChallenge, res audit.Result, detail string) {
	h.log.InfoContext(r.Context(), "second factor refused", "request_id", edge.FromContext(r.Context()).ID, "member_id", ch.MemberID, "result", string(res))
	e := audit.MemberEvent(r, ch.MemberID, audit.KindFactorUsed, detail)
	e.Result = res
	h.audit.Note(r.Context(), e)
}

// FactorFresh reports whether a second factor was entered in s within StepUpWindow.
func (h *Handler) FactorFresh(s Session) bool {
	return !s.FactorAt.IsZero() && h.now().Sub(s.FactorAt) < StepUpWindow
}

// OperatorFactorGate applies the school's security.operator_mfa to an owner or admin of it: one
// without a second factor at a school that requires it is sent to enrol; with grant set (operator
// scopes at consent), one with a factor not entered within StepUpWindow is sent to enter it
// again, unless the school's setting is off. It answers the request itself with that redirect,
// returning to the request afterwards, and reports whether the caller may go on.
func (h *Handler) OperatorFactorGate(w http.ResponseWriter, r *http.Request, s Session, grant bool) (bool, error) {
	if h.factors == nil {
		return true, nil
	}
	t, err := school.FromContext(r.Context())
	if err != nil {
		return false, err
	}
	sum, err := h.factors.Summary(r.Context(), s.Member.ID)
	if err != nil {
		return false, fmt.Errorf("login: second factors of member %d: %w", s.Member.ID, err)
	}
	back := r.URL.RequestURI()
	switch {
	case !sum.Any() && t.Security.RequiresOperatorFactor():
		h.log.InfoContext(r.Context(), "operator sent to enrol a second factor", "request_id", edge.FromContext(r.Context()).ID, "member_id", s.Member.ID)
		SeeOther(w, WithReturnTo(FactorEnrolPath, back))
		return false, nil
	case grant && sum.Any() && t.Security.OperatorStepUp() && !h.FactorFresh(s):
		SeeOther(w, WithReturnTo(FactorPath+"?step_up=1", back))
		return false, nil
	}
	return true, nil
}

// factorForm shows the second step's form.
func (h *Handler) factorForm(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	ch, ok, err := h.Challenge(r, q.Get("step_up") == "1", q.Get("return_to"))
	if err != nil {
		return err
	}
	if !ok {
		h.toLogin(w, ch.ReturnTo)
		return nil
	}
	return h.showFactor(w, r, ch, http.StatusOK, "")
}

// toLogin sends a browser with no (valid) pending sign-in back to the password.
func (h *Handler) toLogin(w http.ResponseWriter, returnTo string) {
	SeeOther(w, WithReturnTo(LoginPath, returnTo))
}

func (h *Handler) showFactor(w http.ResponseWriter, r *http.Request, ch FactorChallenge, status int, msg string) error {
	t, err := school.FromContext(r.Context())
	if err != nil {
		return err
	}
	var sum factor.Summary
	if h.factors != nil {
		if sum, err = h.factors.Summary(r.Context(), ch.MemberID); err != nil {
			return fmt.Errorf("login: second factors of member %d: %w", ch.MemberID, err)
		}
	}
	if !sum.Any() {
		// The factor went (an owner reset it) between the password and this page: the password
		// step alone signs in now; a step-up has nothing to ask.
		if ch.StepUp {
			SeeOther(w, ch.ReturnTo)
		} else {
			h.toLogin(w, ch.ReturnTo)
		}
		return nil
	}
	page := templates.FactorPage{School: t.Name, ReturnTo: ch.ReturnTo, StepUp: ch.StepUp, Message: msg,
		TOTP: sum.TOTP, Passkey: sum.Passkeys > 0}
	if ch.StepUp {
		page.CSRFToken = h.CSRFToken(ch.Session)
	} else {
		page.CSRFToken = h.loginCSRF(w, r)
	}
	h.WritePage(w, r, status, PagePolicy, func(out io.Writer) error { return h.tpl.Factor(r.Context(), out, page) })
	return nil
}

// factorCSRF checks the form's token: the session's for a step-up, the sign-in form's
// double-submit cookie otherwise.
func (h *Handler) factorCSRF(r *http.Request, ch FactorChallenge) bool {
	if ch.StepUp {
		return h.CheckCSRF(r, ch.Session)
	}
	return h.checkLoginCSRF(r)
}

// factor checks a TOTP or recovery code.
func (h *Handler) factor(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	if err := r.ParseForm(); err != nil {
		return FormError(err)
	}
	ch, ok, err := h.Challenge(r, r.PostForm.Get("step_up") == "1", r.PostForm.Get("return_to"))
	if err != nil {
		return err
	}
	if !ok || h.factors == nil {
		h.toLogin(w, ch.ReturnTo)
		return nil
	}
	if !h.factorCSRF(r, ch) {
		h.log.InfoContext(ctx, "second factor refused: CSRF check failed", "request_id", edge.FromContext(ctx).ID)
		return h.showFactor(w, r, ch, http.StatusForbidden, i18n.FromContext(ctx).Text("signin.form_expired"))
	}
	code, _ := ReadCodeField(r.PostForm.Get("code"))
	detail := string(CodeKind(code))
	charged, err := h.TakeFactorAttempt(ctx, ch)
	if err != nil {
		return &PageError{Status: http.StatusServiceUnavailable, View: viewUnavailable, Err: fmt.Errorf("login: rate limiter: %w", err)}
	}
	if charged == nil {
		h.FactorThrottled(w, r, ch, detail)
		return h.showFactor(w, r, ch, http.StatusTooManyRequests, i18n.FromContext(ctx).Text("signin.factor.limited"))
	}
	kind, ok := factor.Kind(""), false
	if code != "" {
		if kind, ok, err = h.factors.VerifyCode(ctx, ch.MemberID, code); err != nil {
			h.refund(ctx, charged...)
			return err
		}
	}
	if kind != "" {
		detail = string(kind)
	}
	if !ok {
		h.FactorFailed(r, ch, detail)
		return h.showFactor(w, r, ch, http.StatusOK, i18n.FromContext(ctx).Text("signin.factor.failed"))
	}
	return h.FactorPassed(w, r, ch, charged, kind, detail, factor.AMROTP)
}

// ReadCodeField reads the code a member typed: spaces and hyphens dropped (codes are shown
// grouped), letters lower-cased, at most maxCode characters of ASCII letters and digits. ok is
// false (and code "") for anything else.
func ReadCodeField(s string) (code string, ok bool) {
	if len(s) > maxCode {
		return "", false
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '-' || c == '\t':
		case c >= '0' && c <= '9', c >= 'a' && c <= 'z':
			b.WriteByte(c)
		case c >= 'A' && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		default:
			return "", false
		}
	}
	return b.String(), b.Len() > 0
}

// CodeKind is what a code read by ReadCodeField looks like: six digits are a TOTP code,
// anything else a recovery code.
func CodeKind(code string) factor.Kind {
	if len(code) == 6 && strings.Trim(code, "0123456789") == "" {
		return factor.KindTOTP
	}
	return factor.KindRecoveryCode
}
