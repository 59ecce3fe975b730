package account

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/password"
	"github.com/proctorhq/proctor/scope"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/templates"
)

// Paths of the account page and its forms.
const (
	AccountPath          = "/account"
	ProfilePath          = "/account/profile"
	PasswordPath         = "/account/password"
	EmailPath            = "/account/email"
	EmailConfirmPath     = "/account/email/confirm"
	SessionEndPath       = "/account/sessions/end"
	SessionEndOthersPath = "/account/sessions/end-others"
	AppRemovePath        = "/account/apps/remove"
)

// AccountPolicy is login.PagePolicy with img-src widened to https: for the account page
// alone, so that the member's picture, wherever it is hosted, can be shown. The page loads
// nothing else from elsewhere, sends no Referer (the layout's meta tag), and shows a picture
// only from an https address: an image from plain http would be readable and replaceable on
// the way.
const AccountPolicy = "default-src 'none'; style-src 'self'; img-src 'self' data: https:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// Bounds of the profile form. A name is shown on every page and in every e-mail; a picture
// address is only a URL.
const (
	profileMaxName    = 100  // characters
	profileMaxPicture = 2048 // bytes
	accountMaxEmail   = storage.MaxEmailLen
)

// accountPasswordLimit bounds wrong current passwords on the password and e-mail forms, per
// member: a stolen session must not become an unlimited way to test guesses of the password.
// It matches the sign-in form's budget per account (login.DefaultAccountLimit).
var accountPasswordBudget = login.Limit{Max: 5, Window: 15 * time.Minute}

// accountEventLimit is how many recent events the page lists.
const accountEventLimit = 20

// accountNotices are the sentences a finished form's redirect names with ?done=. The query
// carries only these keys, never anything the member typed.
var accountNotices = map[string]string{
	"profile":      "Your profile was saved.",
	"password":     "Your password was changed, and every other device was signed out.",
	"password-all": "Your password was changed, and every other device and every application was signed out.",
	"email-sent":   "We sent a confirmation link to the new address. Open it within 24 hours to finish the change.",
	"email":        "Your e-mail address was changed.",
	"session":      "That device was signed out.",
	"sessions":     "Every other device was signed out.",
	"app":          "The application's access was removed.",
}

// Messages of the account page.
const (
	msgAccountExpired = "This form has expired. Please try again."
	msgPasswordLimit  = "Too many wrong passwords. Please wait a few minutes and try again."
)

// mountAccount registers /account and its forms.
func (h *Handler) mountAccount(r *mux.Router) {
	login.MountRoutes(r, h.memberPage, []login.Route[login.VisitPage]{
		{Path: AccountPath, Get: h.accountPage},
		{Path: ProfilePath, Post: h.updateProfile},
		{Path: PasswordPath, Post: h.changePassword},
		{Path: EmailPath, Post: h.requestEmailChange},
		{Path: EmailConfirmPath, Get: h.emailConfirmForm, Post: h.confirmEmailChange},
		{Path: SessionEndPath, Post: h.endSession},
		{Path: SessionEndOthersPath, Post: h.endOtherSessions},
		{Path: AppRemovePath, Post: h.removeApp},
	})
}

// memberPage runs fn for a signed-in member of the request's school (login.MemberPage). A
// POST without the session's CSRF token is refused with the page and a message.
func (h *Handler) memberPage(fn login.VisitPage) http.Handler {
	expired := login.ShowAgain(h.showAccount, templates.AccountPage{Message: msgAccountExpired})
	return h.login.MemberPage(AccountPath, expired, fn)
}

// accountPage shows the page, with the sentence of a form that just finished.
func (h *Handler) accountPage(w http.ResponseWriter, r *http.Request, v login.Visit) error {
	return h.showAccount(w, r, v, http.StatusOK, templates.AccountPage{Notice: accountNotices[r.URL.Query().Get("done")]})
}

// accountDone ends a form that did its work: back to the page, with a fixed sentence.
func accountDone(w http.ResponseWriter, done string) {
	login.SeeOther(w, AccountPath+"?done="+done)
}

// showAccount fills in the member, their sessions, applications and events, and writes the
// page. page carries what the caller decides: messages, and a refused form's input.
func (h *Handler) showAccount(w http.ResponseWriter, r *http.Request, v login.Visit, status int, page templates.AccountPage) error {
	ctx := r.Context()
	m, now := v.Session.Member, h.now()
	page.School, page.MemberName, page.MemberEmail, page.CSRFToken = v.School.Name, m.Name, m.Email, h.login.CSRFToken(v.Session)
	page.PictureURL, page.ShowPicture = m.AvatarURL, pictureShown(m.AvatarURL)
	if page.Name == "" && page.ProfileMessage == "" {
		page.Name, page.Picture = m.Name, m.AvatarURL
	}
	page.MaxName, page.MaxPicture, page.MaxEmail, page.MinPasswordRune = profileMaxName, profileMaxPicture, accountMaxEmail, password.MinLength

	sessions, err := h.store.ListMemberSessions(ctx, m.ID, now)
	if err != nil {
		return fmt.Errorf("account: list sessions: %w", err)
	}
	for _, s := range sessions {
		page.Sessions = append(page.Sessions, templates.AccountSession{
			ID: s.ID, Device: deviceSummary(s.UserAgent), Address: s.ClientAddr,
			LastSeen: pageTime(s.LastSeenAt), CreatedAt: pageTime(s.CreatedAt), Current: s.ID == v.Session.ID,
		})
	}
	apps, err := h.store.ListConnectedApps(ctx, m.ID, now)
	if err != nil {
		return fmt.Errorf("account: list applications: %w", err)
	}
	for _, a := range apps {
		item := templates.AccountApp{ClientID: a.ClientID, Name: a.ClientName, GrantedAt: pageTime(a.GrantedAt), LastUsed: pageTime(a.LastUsedAt)}
		if item.Name == "" {
			item.Name = a.ClientID
		}
		for _, name := range a.Scopes {
			d := name
			if sc, ok := scope.Lookup(name); ok && sc.Description != "" {
				d = sc.Description
			}
			item.Scopes = append(item.Scopes, templates.ScopeItem{Name: name, Description: d})
		}
		page.Apps = append(page.Apps, item)
	}
	events, err := h.store.ListSecurityEvents(ctx, audit.Filter{MemberID: m.ID, Limit: accountEventLimit})
	if err != nil {
		return fmt.Errorf("account: list events: %w", err)
	}
	for _, e := range events {
		detail := e.Detail
		if e.Kind == audit.KindGrantRevoked && e.Detail == "reuse_detected" {
			detail = e.ClientID + " (one of its refresh tokens was used twice)"
		}
		page.Events = append(page.Events, templates.AccountEvent{
			At: pageTime(e.At), What: eventWords(e, m.ID), Detail: detail, Device: deviceSummary(e.UserAgent), Address: e.ClientAddr,
		})
	}
	if status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", fmt.Sprint(int(accountPasswordBudget.Window.Seconds())))
	}
	h.login.WritePage(w, r, status, AccountPolicy, func(out io.Writer) error { return h.tpl.Account(r.Context(), out, page) })
	return nil
}

// pictureShown reports whether the page may load the picture at u as an image: an absolute
// https URL without credentials (AccountPolicy allows https: images and nothing else from
// elsewhere). Any other address is shown as text.
func pictureShown(u string) bool {
	p, err := url.Parse(u)
	return err == nil && p.Scheme == "https" && p.Host != "" && p.User == nil
}

// pageTime writes a time for the page, in UTC (the server does not know the member's zone).
func pageTime(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.UTC().Format("2 Jan 2006, 15:04 UTC")
}

// eventWords says what an event of member me was, in the member's terms: the log holds the
// member's own acts, on their account or as an operator on others', and what others (an
// operator, Proctor itself) did to their account.
func eventWords(e Event, me int64) string {
	failed := e.Result == audit.ResultFailure || e.Result == audit.ResultThrottled
	toOther := e.SubjectID != me
	switch e.Kind {
	case audit.KindSignIn:
		if failed {
			return "Sign-in refused"
		}
		return "Signed in"
	case audit.KindFactorEnrolled:
		if e.Detail == "recovery_code" {
			return "New recovery codes made"
		}
		return "Second factor added"
	case audit.KindFactorRemoved:
		return "Second factor removed"
	case audit.KindFactorUsed:
		if failed {
			return "Second factor refused"
		}
		return "Second factor used"
	case audit.KindFactorsReset:
		return "Second factors reset"
	case audit.KindPasswordChanged:
		return "Password changed"
	case audit.KindPasswordResetRequested:
		return "Password reset link requested"
	case audit.KindPasswordResetCompleted:
		return "Password reset with an e-mail link"
	case audit.KindInvitationSent:
		if toOther {
			return "Invited a member"
		}
		return "Invited to the school"
	case audit.KindInvitationAccepted:
		return "Invitation accepted"
	case audit.KindEmailChanged:
		return "E-mail address changed"
	case audit.KindSessionEnded:
		return "Signed out a device"
	case audit.KindSignedOutEverywhere:
		return "Signed out everywhere"
	case audit.KindGrantRevoked:
		if e.Actor == audit.ActorMember {
			return "Removed an application's access"
		}
		return "An application's access was revoked"
	case audit.KindProfileChanged:
		return "Profile changed"
	case audit.KindConsentApproved:
		return "Allowed an application"
	case audit.KindConsentDenied:
		return "Refused an application"
	case audit.KindLockoutLifted:
		return "Sign-in lock lifted"
	case audit.KindRoleChanged:
		if toOther {
			return "Changed a member's role"
		}
		return "Role changed"
	case audit.KindClientCreated:
		return "Created an application"
	case audit.KindClientSecretRotated:
		return "Issued a new application secret"
	case audit.KindClientDeleted:
		return "Deleted an application"
	default:
		return "Account activity"
	}
}

// accountTx runs fn in one transaction of the store: fn's context carries it.
func (h *Handler) accountTx(ctx context.Context, fn func(ctx context.Context) error) error {
	tx, err := h.store.BeginTx(ctx)
	if err != nil {
		return fmt.Errorf("account: begin: %w", err)
	}
	if err := fn(tx); err != nil {
		if rbErr := h.store.Rollback(tx); rbErr != nil {
			h.log.WarnContext(ctx, "account: rollback", "request_id", edge.FromContext(ctx).ID, "err", rbErr)
		}
		return err
	}
	if err := h.store.Commit(tx); err != nil {
		return fmt.Errorf("account: commit: %w", err)
	}
	return nil
}

// requestEvent is the member's own event of the request (its address, User-Agent and id
// come from r through audit.FromRequest and the Recorder).
func (h *Handler) requestEvent(r *http.Request, memberID int64, kind audit.Kind, detail string) Event {
	return audit.FromRequest(r, Event{
		Kind: kind, At: h.now(), Actor: audit.ActorMember, ActorID: memberID, SubjectID: memberID, Detail: detail,
	})
}

// clipText bounds s to n runes, for details kept with events.
func clipText(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return strings.TrimSpace(string(r[:n])) + "…"
	}
	return s
}
