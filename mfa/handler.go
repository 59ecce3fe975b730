package mfa

import (
	"errors"
	"fmt"
	"html/template"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/factor"
	"github.com/proctorhq/proctor/i18n"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/templates"
)

// Paths served by Mount.
const (
	SecurityPath      = "/account/security"
	TOTPPath          = login.FactorEnrolPath
	RemoveTOTPPath    = TOTPPath + "/remove"
	RecoveryCodesPath = SecurityPath + "/recovery-codes"
)

// Deps are what the handler is built from.
type Deps struct {
	Service *Service
	// Login gives the session, the CSRF token and the current-password check.
	Login     *login.Handler
	Templates *templates.Set
	Audit     *audit.Recorder // nil: no events
	Logger    *slog.Logger    // nil: discard
	Now       func() time.Time
}

// Handler serves the member's second-factor pages.
type Handler struct {
	svc   *Service
	login *login.Handler
	tpl   *templates.Set
	audit *audit.Recorder
	log   *slog.Logger
	now   func() time.Time
}

// New checks d and returns the handler.
func New(d Deps) (*Handler, error) {
	if d.Service == nil || d.Login == nil || d.Templates == nil {
		return nil, errors.New("mfa: Service, Login and Templates are required")
	}
	h := &Handler{svc: d.Service, login: d.Login, tpl: d.Templates, audit: d.Audit, log: d.Logger, now: d.Now}
	h.log, h.now = login.LoggerOrDiscard(h.log), login.ClockOrNow(h.now)
	return h, nil
}

// Mount registers the routes listed in the package documentation.
func (h *Handler) Mount(r *mux.Router) {
	login.MountRoutes(r, h.page, []login.Route[login.VisitPage]{
		{Path: SecurityPath, Get: h.security},
		{Path: TOTPPath, Get: h.enrolForm, Post: h.confirm},
		{Path: RemoveTOTPPath, Post: h.remove},
		{Path: RecoveryCodesPath, Post: h.recoveryCodes},
	})
}

// page runs fn for a signed-in member of the request's school (login.MemberPage): without a
// session a POST goes to sign in and then to SecurityPath. A POST without the session's CSRF
// token is refused with the page and a message.
func (h *Handler) page(fn login.VisitPage) http.Handler {
	return h.login.MemberPage(SecurityPath, func(w http.ResponseWriter, r *http.Request, v login.Visit, status int, msg string) error {
		return h.showSecurity(w, r, v, status, "", msg)
	}, fn)
}

// required reports whether the school requires a second factor of this member (an operator).
func required(v login.Visit) bool {
	return v.School.Security.RequiresOperatorFactor() && v.Session.Operator()
}

func (h *Handler) security(w http.ResponseWriter, r *http.Request, v login.Visit) error {
	return h.showSecurity(w, r, v, http.StatusOK, r.URL.Query().Get("notice"), "")
}

func (h *Handler) showSecurity(w http.ResponseWriter, r *http.Request, v login.Visit, status int, notice, msg string) error {
	ctx := r.Context()
	sum, err := h.svc.Summary(ctx, v.Session.Member.ID)
	if err != nil {
		return err
	}
	// The query names a notice; only a known name gives a sentence.
	if notice == "removed" {
		notice = i18n.FromContext(ctx).Text("mfa.notice_removed")
	} else {
		notice = ""
	}
	page := templates.SecurityPage{
		School: v.School.Name, MemberName: v.Session.Member.Name, MemberEmail: v.Session.Member.Email, CSRFToken: h.login.CSRFToken(v.Session),
		Notice: notice, Message: msg, TOTP: sum.TOTP, RecoveryCodesLeft: sum.RecoveryCodesLeft, Passkeys: sum.Passkeys,
		Required: required(v), PasswordOptional: h.login.FactorFresh(v.Session),
	}
	if status == http.StatusTooManyRequests {
		login.RetryCurrentPassword(w)
	}
	h.login.WritePage(w, r, status, login.PagePolicy, func(out io.Writer) error { return h.tpl.Security(r.Context(), out, page) })
	return nil
}

// enrolForm shows the pending TOTP secret (a new one if there is none).
func (h *Handler) enrolForm(w http.ResponseWriter, r *http.Request, v login.Visit) error {
	return h.showEnrol(w, r, v, http.StatusOK, login.SafeReturnTo(r.URL.Query().Get("return_to")), "")
}

func (h *Handler) showEnrol(w http.ResponseWriter, r *http.Request, v login.Visit, status int, returnTo, msg string) error {
	ctx := r.Context()
	e, err := h.svc.BeginTOTP(ctx, v.Session.Member.ID, v.School.Name, v.Session.Member.Email)
	if errors.Is(err, ErrEnrolled) {
		login.SeeOther(w, SecurityPath)
		return nil
	}
	if err != nil {
		return err
	}
	page := templates.TOTPEnrolPage{
		School: v.School.Name, MemberName: v.Session.Member.Name, MemberEmail: v.Session.Member.Email, CSRFToken: h.login.CSRFToken(v.Session),
		ReturnTo: returnTo, Message: msg, Secret: group(e.Secret), Required: required(v),
		// BeginTOTP made it: a PNG, base64-encoded, nothing of the member's input.
		QRCode: template.URL(e.QRCode),
	}
	h.login.WritePage(w, r, status, login.PagePolicy, func(out io.Writer) error { return h.tpl.TOTPEnrol(r.Context(), out, page) })
	return nil
}

// group writes a base32 key in groups of four, as apps that take it typed show it.
func group(s string) string {
	var out []byte
	for i := 0; i < len(s); i++ {
		if i > 0 && i%4 == 0 {
			out = append(out, ' ')
		}
		out = append(out, s[i])
	}
	return string(out)
}

// confirm turns TOTP on with a code of the pending secret; the session counts as signed in with
// it from now on (the member just entered it).
func (h *Handler) confirm(w http.ResponseWriter, r *http.Request, v login.Visit) error {
	ctx := r.Context()
	returnTo := login.SafeReturnTo(r.PostForm.Get("return_to"))
	codes, ok, err := h.svc.ConfirmTOTP(ctx, v.Session.Member.ID, r.PostForm.Get("code"))
	if err != nil {
		return err
	}
	if !ok {
		return h.showEnrol(w, r, v, http.StatusOK, returnTo, i18n.FromContext(ctx).Text("mfa.code_wrong"))
	}
	amr := []string{factor.AMRPassword, factor.AMROTP, factor.AMRMultiFactor}
	if err := h.svc.MarkSessionFactor(ctx, v.Session.ID, amr, h.now()); err != nil {
		return fmt.Errorf("mfa: mark session: %w", err)
	}
	h.note(r, v, audit.KindFactorEnrolled, factor.KindTOTP)
	h.log.InfoContext(ctx, "TOTP turned on", v.LogArgs(ctx)...)
	if returnTo == login.DefaultReturnTo {
		returnTo = SecurityPath
	}
	return h.showCodes(w, r, v, codes, returnTo)
}

func (h *Handler) showCodes(w http.ResponseWriter, r *http.Request, v login.Visit, codes []string, next string) error {
	page := templates.RecoveryCodesPage{School: v.School.Name, MemberName: v.Session.Member.Name, MemberEmail: v.Session.Member.Email, Codes: codes, Continue: next}
	// WritePage sends Cache-Control: no-store: the codes are shown once and kept by no cache.
	h.login.WritePage(w, r, http.StatusOK, login.PagePolicy, func(out io.Writer) error { return h.tpl.RecoveryCodes(r.Context(), out, page) })
	return nil
}

// remove turns TOTP off after the current password (or with a fresh factor).
func (h *Handler) remove(w http.ResponseWriter, r *http.Request, v login.Visit) error {
	ctx := r.Context()
	if ok, err := h.reauthenticated(w, r, v); err != nil || !ok {
		return err
	}
	err := h.svc.RemoveTOTP(ctx, v.Session.Member.ID)
	if errors.Is(err, storage.ErrNotFound) {
		return h.showSecurity(w, r, v, http.StatusOK, "", i18n.FromContext(ctx).Text("mfa.no_totp"))
	}
	if err != nil {
		return err
	}
	h.note(r, v, audit.KindFactorRemoved, factor.KindTOTP)
	h.log.InfoContext(ctx, "TOTP turned off", v.LogArgs(ctx)...)
	login.SeeOther(w, SecurityPath+"?notice=removed")
	return nil
}

// recoveryCodes replaces the member's recovery codes after the current password (or with a
// fresh factor).
func (h *Handler) recoveryCodes(w http.ResponseWriter, r *http.Request, v login.Visit) error {
	ctx := r.Context()
	if ok, err := h.reauthenticated(w, r, v); err != nil || !ok {
		return err
	}
	sum, err := h.svc.Summary(ctx, v.Session.Member.ID)
	if err != nil {
		return err
	}
	if !sum.TOTP {
		return h.showSecurity(w, r, v, http.StatusOK, "", i18n.FromContext(ctx).Text("mfa.no_totp"))
	}
	codes, err := h.svc.NewRecoveryCodes(ctx, v.Session.Member.ID)
	if err != nil {
		return err
	}
	h.note(r, v, audit.KindFactorEnrolled, factor.KindRecoveryCode)
	return h.showCodes(w, r, v, codes, SecurityPath)
}

// reauthenticated checks the form's current_password (login's ConfirmCurrentPassword, charged to
// the member's one budget of such checks), unless a second factor was entered in the session
// within login.StepUpWindow. When it refuses, it has shown the page.
func (h *Handler) reauthenticated(w http.ResponseWriter, r *http.Request, v login.Visit) (bool, error) {
	if h.login.FactorFresh(v.Session) {
		return true, nil
	}
	_, ok, err := h.login.ConfirmCurrentPassword(r.Context(), v, r.PostForm.Get("current_password"), "second factor change", func(status int, msg string) error {
		return h.showSecurity(w, r, v, status, "", msg)
	})
	return ok, err
}

func (h *Handler) note(r *http.Request, v login.Visit, k audit.Kind, kind factor.Kind) {
	h.audit.Note(r.Context(), audit.MemberEvent(r, v.Session.Member.ID, k, string(kind)))
}
