package login

import (
	"context"
	"errors"
	"net/http"

	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/i18n"
	"github.com/proctorhq/proctor/school"
)

// Visit is a signed-in member's request to one of their own pages: their school and session.
type Visit struct {
	School  *school.School
	Session Session
}

// LogArgs are the attributes a log line of a member's page starts with, the request's id, the
// school and the member, followed by more.
func (v Visit) LogArgs(ctx context.Context, more ...any) []any {
	return append([]any{"request_id", edge.FromContext(ctx).ID, "school_id", v.School.SchoolID, "member_id", v.Session.Member.ID}, more...)
}

// Redraw draws a member's page again with status and msg, a sentence in the request's
// language above the page: how a page answers a form it refuses.
type Redraw = func(w http.ResponseWriter, r *http.Request, v Visit, status int, msg string) error

// MemberPage serves fn to a signed-in member of the request's school, the one way every page of
// a member's own account (account, second factors, passkeys) is guarded. Without a session a
// GET goes to sign in and comes back; a POST goes to sign in and then to home, since its form
// is gone. A POST's form is parsed and must carry the session's CSRF token: without it, the
// page is drawn again by redraw with 403 and the sentence that the form expired, and fn does not
// run. What fn or redraw return is written by Fail.
func (h *Handler) MemberPage(home string, redraw Redraw, fn VisitPage) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h.serveMember(w, r, home, redraw, fn); err != nil {
			h.Fail(w, r, err)
		}
	})
}

func (h *Handler) serveMember(w http.ResponseWriter, r *http.Request, home string, redraw Redraw, fn VisitPage) error {
	t, err := school.FromContext(r.Context())
	if err != nil {
		return err
	}
	post := r.Method == http.MethodPost
	if post {
		if err := r.ParseForm(); err != nil {
			return FormError(err)
		}
	}
	s, err := h.Load(r)
	if errors.Is(err, ErrNoSession) {
		if post {
			SeeOther(w, WithReturnTo(LoginPath, home))
		} else {
			h.RedirectToLogin(w, r)
		}
		return nil
	}
	if err != nil {
		return err
	}
	v := Visit{School: t, Session: s}
	if post && !h.CheckCSRF(r, s) {
		h.log.InfoContext(r.Context(), "member form refused: CSRF check failed", "request_id", edge.FromContext(r.Context()).ID,
			"school_id", t.SchoolID, "path", r.URL.Path)
		return redraw(w, r, v, http.StatusForbidden, i18n.FromContext(r.Context()).Text("account.expired"))
	}
	return fn(w, r, v)
}
