package account

import (
	"errors"
	"io"
	"net/http"

	"github.com/gorilla/mux"

	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/i18n"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/templates"
)

// Paths of the recovery and invitation pages.
const (
	ForgotPath     = "/login/forgot"
	ResetPath      = "/login/reset"
	InvitationPath = "/invitation"
)

// Messages of the recovery pages, in English: the pages write them in the request's language
// from the catalogue (signin.form_expired, signin.forgot.email_missing,
// signin.passwords_differ).
const (
	MsgFormExpired     = "This form has expired. Please try again."
	MsgEmailMissing    = "Enter your e-mail address."
	MsgPasswordsDiffer = "The two passwords are not the same."
)

// viewResetLimited is the page of a network that asked for too many reset links.
var viewResetLimited = login.ErrorView{TitleKey: "errors.reset_limited.title", MessageKey: "errors.reset_limited.message"}

// mountRecovery registers the invitation and password-recovery routes.
func (h *Handler) mountRecovery(r *mux.Router) {
	login.MountRoutes(r, h.recoveryPage, []login.Route[login.SchoolPage]{
		{Path: ForgotPath, Get: h.forgotForm, Post: h.forgot},
		{Path: ResetPath, Get: linkForm(h.showReset), Post: h.reset},
		{Path: InvitationPath, Get: linkForm(h.showInvitation), Post: h.acceptInvitation},
	})
}

// recoveryPage adapts a page that returns an error: login.Fail logs it and shows a page that
// says nothing about it.
func (h *Handler) recoveryPage(fn login.SchoolPage) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t, err := school.FromContext(r.Context())
		if err == nil {
			err = fn(w, r, t)
		}
		if err != nil {
			h.login.Fail(w, r, err)
		}
	})
}

func (h *Handler) write(w http.ResponseWriter, r *http.Request, status int, render func(io.Writer) error) {
	h.login.WritePage(w, r, status, login.PagePolicy, render)
}

func origin(r *http.Request) Origin {
	return Origin{ClientAddr: edge.FromContext(r.Context()).ClientAddr.String(), UserAgent: r.UserAgent()}
}

// forgotForm shows the forgotten-password form.
func (h *Handler) forgotForm(w http.ResponseWriter, r *http.Request, t *school.School) error {
	h.showForgot(w, r, t, http.StatusOK, "")
	return nil
}

func (h *Handler) showForgot(w http.ResponseWriter, r *http.Request, t *school.School, status int, msg string) {
	page := templates.ForgotPage{School: t.Name, CSRFToken: h.login.FormToken(w, r), Message: msg}
	h.write(w, r, status, func(out io.Writer) error { return h.svc.tpl.Forgot(r.Context(), out, page) })
}

// forgot takes a forgotten-password form. After the CSRF check and the client address's
// budget, every address gets the same work (one outbox request) and the same page: nothing in
// the answer, its headers or its cost depends on whether the address is a member's.
func (h *Handler) forgot(w http.ResponseWriter, r *http.Request, t *school.School) error {
	ctx := r.Context()
	info := edge.FromContext(ctx)
	if err := r.ParseForm(); err != nil {
		return login.FormError(err)
	}
	if !h.login.CheckFormToken(r) {
		h.svc.log.InfoContext(ctx, "forgotten-password form refused: CSRF check failed", "request_id", info.ID, "school_id", t.SchoolID)
		h.showForgot(w, r, t, http.StatusForbidden, i18n.FromContext(ctx).Text("signin.form_expired"))
		return nil
	}
	email := storage.NormaliseEmail(r.PostForm.Get("email"))
	if email == "" {
		h.showForgot(w, r, t, http.StatusOK, i18n.FromContext(ctx).Text("signin.forgot.email_missing"))
		return nil
	}
	ok, err := h.svc.limiter.Take(ctx, "reset-"+login.AddressKey(info.ClientAddr), h.addressLimit)
	if err != nil {
		return login.Unavailable(err)
	}
	if !ok {
		h.svc.log.WarnContext(ctx, "forgotten-password form refused: rate limited", "request_id", info.ID, "school_id", t.SchoolID, "client", info.ClientAddr.String())
		login.SetRetryAfter(w, h.addressLimit.Window)
		h.login.RenderError(w, r, http.StatusTooManyRequests, viewResetLimited)
		return nil
	}
	if err := h.svc.RequestReset(ctx, email); err != nil {
		return err
	}
	page := templates.ForgotSentPage{School: t.Name, Minutes: int(h.svc.ResetTTL().Minutes())}
	h.write(w, r, http.StatusOK, func(out io.Writer) error { return h.svc.tpl.ForgotSent(r.Context(), out, page) })
	return nil
}

// linkDead shows that a link can no longer be used, with the way to a new one.
func (h *Handler) linkDead(w http.ResponseWriter, r *http.Request, t *school.School, purpose Purpose) {
	loc := i18n.FromContext(r.Context())
	page := templates.LinkDeadPage{School: t.Name, Title: loc.Text("signin.link_dead.title")}
	switch purpose {
	case PurposeInvitation:
		page.Message = loc.Text("signin.link_dead.invitation", "School", t.Name)
		page.NextURL, page.NextText = login.LoginPath, loc.Text("signin.button")
	default:
		page.Message = loc.Text("signin.link_dead.reset")
		page.NextURL, page.NextText = ForgotPath, loc.Text("signin.link_dead.new_link")
	}
	h.write(w, r, http.StatusGone, func(out io.Writer) error { return h.svc.tpl.LinkDead(r.Context(), out, page) })
}

// linkShow draws the form of a link's page (the new-password form, the invitation) with a
// status and a message, or the dead-link page.
type linkShow func(w http.ResponseWriter, r *http.Request, t *school.School, status int, token, msg string) error

// linkForm shows the form of the live link named by ?token=. It does not use the link: mail
// scanners open links too.
func linkForm(show linkShow) login.SchoolPage {
	return func(w http.ResponseWriter, r *http.Request, t *school.School) error {
		return show(w, r, t, http.StatusOK, r.URL.Query().Get("token"), "")
	}
}

// peekLink returns the member of token's live link of purpose without using it. A dead link
// gets the dead-link page, and ok is false then.
func (h *Handler) peekLink(w http.ResponseWriter, r *http.Request, t *school.School, token string, purpose Purpose) (lm LinkMember, ok bool, err error) {
	lm, err = h.svc.PeekLink(r.Context(), token, purpose)
	if errors.Is(err, ErrLinkDead) {
		h.linkDead(w, r, t, purpose)
		return LinkMember{}, false, nil
	}
	if err != nil {
		return LinkMember{}, false, err
	}
	return lm, true, nil
}

// showReset draws the new-password form of a live reset link.
func (h *Handler) showReset(w http.ResponseWriter, r *http.Request, t *school.School, status int, token, msg string) error {
	lm, ok, err := h.peekLink(w, r, t, token, PurposeReset)
	if !ok {
		return err
	}
	page := templates.ResetPage{School: t.Name, MemberEmail: lm.Member.Email, Token: token, CSRFToken: h.login.FormToken(w, r), Message: msg}
	h.write(w, r, status, func(out io.Writer) error { return h.svc.tpl.Reset(r.Context(), out, page) })
	return nil
}

// reset sets the new password, uses the link, ends the member's sessions and signs this
// browser in.
func (h *Handler) reset(w http.ResponseWriter, r *http.Request, t *school.School) error {
	ctx := r.Context()
	var m storage.Member
	ok, err := h.redeemLink(w, r, t, PurposeReset, h.showReset, func(token, pw string) (err error) {
		m, err = h.svc.ResetPassword(ctx, ResetRequest{
			Token: token, Password: pw, SignOutApps: r.PostForm.Get("signout_apps") == "yes", Origin: origin(r),
		})
		return err
	})
	if !ok {
		return err
	}
	h.svc.log.InfoContext(ctx, "password reset", "request_id", edge.FromContext(ctx).ID, "school_id", t.SchoolID, "member_id", m.ID)
	// A member with a second factor enters it before the session starts: the link proves the
	// mailbox, not the factor.
	return h.login.SignIn(ctx, w, r, m, AccountPath)
}

// linkForms names each link's form in the log.
var linkForms = map[Purpose]string{PurposeReset: "password reset", PurposeInvitation: "invitation"}

// redeemLink reads a posted link form of purpose (token, password, password2) after its CSRF
// check and hands token and password to redeem. A form fault (a failed check, two passwords
// that differ) and a refused password are answered with show's form again, a dead link with
// the dead-link page; ok is false then, with the error left to return.
func (h *Handler) redeemLink(w http.ResponseWriter, r *http.Request, t *school.School, purpose Purpose, show linkShow,
	redeem func(token, pw string) error) (ok bool, err error) {
	if err := r.ParseForm(); err != nil {
		return false, login.FormError(err)
	}
	token := r.PostForm.Get("token")
	if !h.login.CheckFormToken(r) {
		h.svc.log.InfoContext(r.Context(), linkForms[purpose]+" refused: CSRF check failed", "request_id", edge.FromContext(r.Context()).ID, "school_id", t.SchoolID)
		return false, show(w, r, t, http.StatusForbidden, token, i18n.FromContext(r.Context()).Text("signin.form_expired"))
	}
	pw := r.PostForm.Get("password")
	if pw != r.PostForm.Get("password2") {
		return false, show(w, r, t, http.StatusOK, token, i18n.FromContext(r.Context()).Text("signin.passwords_differ"))
	}
	err = redeem(token, pw)
	var pe *PasswordError
	switch {
	case err == nil:
		return true, nil
	case errors.As(err, &pe):
		return false, show(w, r, t, http.StatusOK, token, policyMessage(i18n.FromContext(r.Context()), pe, true))
	case errors.Is(err, ErrLinkDead):
		h.linkDead(w, r, t, purpose)
		return false, nil
	default:
		return false, err
	}
}

// showInvitation draws the invitation page of token, or the dead-link page.
func (h *Handler) showInvitation(w http.ResponseWriter, r *http.Request, t *school.School, status int, token, msg string) error {
	lm, ok, err := h.peekLink(w, r, t, token, PurposeInvitation)
	if !ok {
		return err
	}
	page := templates.InvitationPage{
		School: t.Name, MemberName: lm.Member.Name, MemberEmail: lm.Member.Email, HasPassword: lm.HasPassword,
		Token: token, CSRFToken: h.login.FormToken(w, r), Message: msg,
	}
	h.write(w, r, status, func(out io.Writer) error { return h.svc.tpl.InvitationForm(r.Context(), out, page) })
	return nil
}

// acceptInvitation uses an invitation: a member without a password chooses one and is signed
// in; a member who has one is sent to sign in with it.
func (h *Handler) acceptInvitation(w http.ResponseWriter, r *http.Request, t *school.School) error {
	ctx := r.Context()
	var res AcceptResult
	ok, err := h.redeemLink(w, r, t, PurposeInvitation, h.showInvitation, func(token, pw string) (err error) {
		res, err = h.svc.AcceptInvitation(ctx, AcceptRequest{Token: token, Password: pw, Origin: origin(r)})
		return err
	})
	if !ok {
		return err
	}
	h.svc.log.InfoContext(ctx, "invitation accepted", "request_id", edge.FromContext(ctx).ID, "school_id", t.SchoolID, "member_id", res.Member.ID, "password_set", res.PasswordSet)
	if !res.PasswordSet {
		login.SeeOther(w, login.LoginPath)
		return nil
	}
	return h.login.SignIn(ctx, w, r, res.Member, AccountPath)
}
