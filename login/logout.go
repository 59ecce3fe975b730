package login

import (
	"errors"
	"io"
	"net/http"

	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/i18n"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/templates"
)

// MsgLogoutExpired asks the member to confirm again after a sign-out form that failed its CSRF
// check: the English of the catalogue's signin.logout.expired, which the page shows.
const MsgLogoutExpired = "Please confirm again that you want to sign out."

// logoutForm asks for confirmation. GET never signs anyone out: any page on the web can make a
// browser GET a URL.
func (h *Handler) logoutForm(w http.ResponseWriter, r *http.Request) error {
	t, err := school.FromContext(r.Context())
	if err != nil {
		return err
	}
	s, ok := h.Current(r)
	if !ok {
		h.renderSignedOut(w, r, t)
		return nil
	}
	h.renderLogout(w, r, http.StatusOK, t, s, "")
	return nil
}

// logout ends the session: its row is deleted, so the token is worthless even if the browser
// keeps the cookie, and the cookie is cleared.
func (h *Handler) logout(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	t, info, err := postedForm(r)
	if err != nil {
		return err
	}
	s, err := h.Load(r)
	if errors.Is(err, ErrNoSession) {
		// Nothing to end; a stale cookie goes.
		clearSessionCookie(w, secureCookies(r))
		h.renderSignedOut(w, r, t)
		return nil
	}
	if err != nil {
		return err
	}
	if !h.CheckCSRF(r, s) {
		h.log.InfoContext(ctx, "sign-out refused: CSRF check failed", "request_id", info.ID, "school_id", t.SchoolID)
		h.renderLogout(w, r, http.StatusForbidden, t, s, i18n.FromContext(ctx).Text("signin.logout.expired"))
		return nil
	}
	if err := h.store.DeleteLoginSession(ctx, s.ID); err != nil && !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	clearSessionCookie(w, secureCookies(r))
	h.log.InfoContext(ctx, "signed out", "request_id", info.ID, "school_id", t.SchoolID, "member_id", s.Member.ID)
	h.renderSignedOut(w, r, t)
	return nil
}

func (h *Handler) renderSignedOut(w http.ResponseWriter, r *http.Request, t *school.School) {
	h.WritePage(w, r, http.StatusOK, PagePolicy, func(out io.Writer) error {
		return h.tpl.SignedOut(r.Context(), out, templates.SignedOutPage{School: t.Name})
	})
}

// renderLogout writes the sign-out confirmation of session s, with msg when its form expired.
func (h *Handler) renderLogout(w http.ResponseWriter, r *http.Request, status int, t *school.School, s Session, msg string) {
	page := templates.LogoutPage{
		School: t.Name, MemberName: s.Member.Name, MemberEmail: s.Member.Email, CSRFToken: h.CSRFToken(s),
		Message: msg,
	}
	h.WritePage(w, r, status, PagePolicy, func(out io.Writer) error { return h.tpl.Logout(r.Context(), out, page) })
}

// postedForm reads what a posted sign-in or sign-out form starts from: the request's school, what
// the edge knows of the request (for the log), and the parsed form (a FormError if it does not
// parse).
func postedForm(r *http.Request) (*school.School, *edge.Info, error) {
	t, err := school.FromContext(r.Context())
	if err != nil {
		return nil, nil, err
	}
	if err := r.ParseForm(); err != nil {
		return nil, nil, FormError(err)
	}
	return t, edge.FromContext(r.Context()), nil
}
