package account

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/gorilla/mux"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/i18n"
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

// accountEventLimit is how many recent events the page lists.
const accountEventLimit = 20

// accountNotices are the sentences a finished form's redirect names with ?done=. The query
// carries only these names, never anything the member typed.
var accountNotices = map[string]string{
	"profile":      "account.notice.profile",
	"password":     "account.notice.password",
	"password-all": "account.notice.password_all",
	"email-sent":   "account.notice.email_sent",
	"email":        "account.notice.email",
	"session":      "account.notice.session",
	"sessions":     "account.notice.sessions",
	"app":          "account.notice.app",
}

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
	return h.login.MemberPage(AccountPath, func(w http.ResponseWriter, r *http.Request, v login.Visit, status int, msg string) error {
		return h.showAccount(w, r, v, status, templates.AccountPage{Message: msg})
	}, fn)
}

// accountPage shows the page, with the sentence of a form that just finished.
func (h *Handler) accountPage(w http.ResponseWriter, r *http.Request, v login.Visit) error {
	notice := i18n.FromContext(r.Context()).NoticeText(accountNotices, r.URL.Query().Get("done"))
	return h.showAccount(w, r, v, http.StatusOK, templates.AccountPage{Notice: notice})
}

// accountDone ends a form that did its work: back to the page, with a fixed sentence.
func accountDone(w http.ResponseWriter, done string) {
	login.SeeOther(w, AccountPath+"?done="+done)
}

// showAccount fills in the member, their sessions, applications and events, and writes the
// page. page carries what the caller decides: messages, and a refused form's input.
func (h *Handler) showAccount(w http.ResponseWriter, r *http.Request, v login.Visit, status int, page templates.AccountPage) error {
	ctx := r.Context()
	loc := i18n.FromContext(ctx)
	never := loc.Text("account.never")
	m, now := v.Session.Member, h.svc.now()
	page.School, page.MemberName, page.MemberEmail, page.CSRFToken = v.School.Name, m.Name, m.Email, h.login.CSRFToken(v.Session)
	page.PictureURL, page.ShowPicture = m.AvatarURL, pictureShown(m.AvatarURL)
	if page.Name == "" && page.ProfileMessage == "" {
		page.Name, page.Picture = m.Name, m.AvatarURL
	}
	page.MaxName, page.MaxPicture, page.MaxEmail, page.MinPasswordRune = profileMaxName, profileMaxPicture, accountMaxEmail, password.MinLength

	sessions, err := h.svc.store.ListMemberSessions(ctx, m.ID, now)
	if err != nil {
		return fmt.Errorf("account: list sessions: %w", err)
	}
	for _, s := range sessions {
		page.Sessions = append(page.Sessions, templates.AccountSession{
			ID: s.ID, Device: localDevice(loc, deviceSummary(s.UserAgent)), Address: s.ClientAddr,
			LastSeen: loc.DateTimeOr(s.LastSeenAt, never), CreatedAt: loc.DateTimeOr(s.CreatedAt, never), Current: s.ID == v.Session.ID,
		})
	}
	apps, err := h.svc.store.ListConnectedApps(ctx, m.ID, now)
	if err != nil {
		return fmt.Errorf("account: list applications: %w", err)
	}
	for _, a := range apps {
		item := templates.AccountApp{ClientID: a.ClientID, Name: a.ClientName, GrantedAt: loc.DateTimeOr(a.GrantedAt, never), LastUsed: loc.DateTimeOr(a.LastUsedAt, never)}
		if item.Name == "" {
			item.Name = a.ClientID
		}
		for _, name := range a.Scopes {
			item.Scopes = append(item.Scopes, templates.ScopeItem{Name: name, Description: scope.Describe(loc, name)})
		}
		page.Apps = append(page.Apps, item)
	}
	events, err := h.svc.store.ListSecurityEvents(ctx, audit.Filter{MemberID: m.ID, Limit: accountEventLimit})
	if err != nil {
		return fmt.Errorf("account: list events: %w", err)
	}
	for _, e := range events {
		page.Events = append(page.Events, templates.AccountEvent{
			At: loc.DateTimeOr(e.At, never), What: eventWords(loc, e, m.ID), Detail: eventDetail(loc, e), Device: localDevice(loc, deviceSummary(e.UserAgent)),
			Address: e.ClientAddr,
		})
	}
	if status == http.StatusTooManyRequests {
		login.RetryCurrentPassword(w)
	}
	h.login.WritePage(w, r, status, AccountPolicy, func(out io.Writer) error { return h.svc.tpl.Account(r.Context(), out, page) })
	return nil
}

// pictureShown reports whether the page may load the picture at u as an image: an absolute
// https URL without credentials (AccountPolicy allows https: images and nothing else from
// elsewhere). Any other address is shown as text.
func pictureShown(u string) bool {
	p, err := url.Parse(u)
	return err == nil && p.Scheme == "https" && p.Host != "" && p.User == nil
}

// Every kind of event has its words in the catalogue under "account.event.<kind>"
// (TestEventWordsInLanguage checks each of audit.Kinds); a kind the log holds that this build
// does not know is "account.event.other".
const eventKey = "account.event."

// Some kinds also have words for a refused act ("<kind>_refused") or for an act the reader did
// to another member's account ("<kind>_other").
var (
	refusedWords = []audit.Kind{audit.KindSignIn, audit.KindFactorUsed}
	otherWords   = []audit.Kind{audit.KindInvitationSent, audit.KindRoleChanged}
)

// eventWords says what an event of member me was, in the member's terms and language: the log holds the
// member's own acts, on their account or as an operator on others', and what others (an
// operator, Proctor itself) did to their account.
func eventWords(loc *i18n.Localizer, e Event, me int64) string {
	key := eventKey + string(e.Kind)
	switch {
	case !audit.KnownKind(e.Kind):
		key = eventKey + "other"
	case e.Kind == audit.KindFactorEnrolled && e.Detail == "recovery_code":
		key = eventKey + "recovery_codes"
	case e.Kind == audit.KindGrantRevoked && e.Actor == audit.ActorMember:
		key = eventKey + "app_removed"
	case slices.Contains(refusedWords, e.Kind) && (e.Result == audit.ResultFailure || e.Result == audit.ResultThrottled):
		key += "_refused"
	case slices.Contains(otherWords, e.Kind) && e.SubjectID != me:
		key += "_other"
	}
	return loc.Text(key)
}

// eventDetail writes an event's detail for the page. The details the account's own forms
// record in words (the device signed out, how many others, what a new password also did) are
// written in the member's language; any other detail (an application's name, a role) is shown
// as it was recorded.
func eventDetail(loc *i18n.Localizer, e Event) string {
	switch e.Kind {
	case audit.KindGrantRevoked:
		if e.Detail == "reuse_detected" {
			return loc.Text("account.refresh_reuse", "Client", e.ClientID)
		}
	case audit.KindPasswordChanged:
		if e.Detail != "" && e.Detail == signedOutNote(true) {
			return loc.Text("account.event.signed_out_apps")
		}
	case audit.KindSessionEnded:
		if n, ok := otherDevicesCount(e.Detail); ok {
			return loc.Text("account.other_devices", "Count", n)
		}
		return localDevice(loc, e.Detail)
	}
	return e.Detail
}

// otherDevicesNote is the detail of a sign-out of n other devices, as the event log keeps it.
func otherDevicesNote(n int) string {
	if n == 1 {
		return "1 other device"
	}
	return strconv.Itoa(n) + " other devices"
}

// otherDevicesCount reads the n of an otherDevicesNote.
func otherDevicesCount(detail string) (int, bool) {
	num, ok := strings.CutSuffix(detail, " other devices")
	if !ok {
		num, ok = strings.CutSuffix(detail, " other device")
	}
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(num)
	return n, err == nil && n > 0
}

// requestEvent is the member's own event of the request (audit.MemberEvent) at the service's
// clock.
func (h *Handler) requestEvent(r *http.Request, memberID int64, kind audit.Kind, detail string) Event {
	e := audit.MemberEvent(r, memberID, kind, detail)
	e.At = h.svc.now()
	return e
}

// clipText bounds s to n runes, for details kept with events.
func clipText(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return strings.TrimSpace(string(r[:n])) + "…"
	}
	return s
}
