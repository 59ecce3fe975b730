package login

import (
	"context"
	"io"
	"net/http"
	"strconv"

	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/i18n"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/scope"
	"github.com/proctorhq/proctor/templates"
)

// maxFormAction bounds the consent form's action: the authorization request's URI.
const maxFormAction = maxReturnTo

// ConsentView is what the authorization endpoint tells the consent page.
type ConsentView struct {
	ClientName string
	// RedirectHost is the host of the redirect URI the answer goes to.
	RedirectHost string
	// ClientIDHost is set for a client identified by a metadata-document URL: its host is the
	// client's only verified name, and the page shows it prominently.
	ClientIDHost string
	// LoopbackOnly warns that every redirect URI is a loopback address: whatever runs on the
	// member's machine receives the code.
	LoopbackOnly bool
	Scopes       []scope.Scope
	// FormAction is where the decision is POSTed: the authorization URL with its query, as a
	// path on this origin ("/oauth/authorize?..."). The form carries csrf_token and decision
	// ("approve" or "deny").
	FormAction string
}

// ErrorView is an error page's text: plain words for the member, never debug detail (that
// goes to the log). Title and Message are shown as they are, written already in the request's
// language (i18n.FromContext(ctx).Text); a view declared once for every request (a package
// variable) names catalogue messages instead, in TitleKey and MessageKey, which RenderError
// writes in the language of the request it answers and which take the place of Title and
// Message.
type ErrorView struct {
	Title, Message       string
	TitleKey, MessageKey string
}

// text returns v's title and message in loc's language.
func (v ErrorView) text(loc *i18n.Localizer) (title, message string) {
	title, message = v.Title, v.Message
	if v.TitleKey != "" {
		title = loc.Text(v.TitleKey)
	}
	if v.MessageKey != "" {
		message = loc.Text(v.MessageKey)
	}
	return title, message
}

// RenderConsent writes the consent page for s. Consent is asked on every authorization (spec,
// "Consent is shown on every authorization"), so the page has no "remember" option.
func (h *Handler) RenderConsent(w http.ResponseWriter, r *http.Request, s Session, v ConsentView) {
	t, err := school.FromContext(r.Context())
	if err != nil {
		h.Fail(w, r, err)
		return
	}
	if !localPath(v.FormAction, maxFormAction) {
		// A programming error upstream; a form posting elsewhere must never be drawn.
		h.log.ErrorContext(r.Context(), "consent form action is not a path on this origin", "request_id", edge.FromContext(r.Context()).ID)
		h.RenderError(w, r, http.StatusInternalServerError, viewInternal)
		return
	}
	items := ScopeItems(r.Context(), v.Scopes)
	page := templates.ConsentPage{
		School:       t.Name,
		ClientName:   v.ClientName,
		RedirectHost: v.RedirectHost,
		ClientIDHost: v.ClientIDHost,
		LoopbackOnly: v.LoopbackOnly,
		Scopes:       items,
		MemberName:   s.Member.Name,
		MemberEmail:  s.Member.Email,
		FormAction:   v.FormAction,
		CSRFToken:    h.CSRFToken(s),
	}
	h.WritePage(w, r, http.StatusOK, ConsentPolicy, func(out io.Writer) error { return h.tpl.Consent(r.Context(), out, page) })
}

// ScopeItems are the lines of a page's list of scopes, each described in the language of
// ctx's localizer (scope.Describe).
func ScopeItems(ctx context.Context, scopes []scope.Scope) []templates.ScopeItem {
	loc := i18n.FromContext(ctx)
	items := make([]templates.ScopeItem, 0, len(scopes))
	for _, sc := range scopes {
		items = append(items, templates.ScopeItem{Name: sc.Name, Description: scope.Describe(loc, sc.Name)})
	}
	return items
}

// RenderError writes an error page with the given status. The page shows v, in the request's
// language, and the request id (so that support can find the log line) and nothing else.
func (h *Handler) RenderError(w http.ResponseWriter, r *http.Request, status int, v ErrorView) {
	loc := i18n.FromContext(r.Context())
	title, message := v.text(loc)
	if title == "" {
		title, _ = viewInternal.text(loc)
	}
	page := templates.ErrorPage{Title: title, Message: message, RequestID: edge.FromContext(r.Context()).ID}
	if t, err := school.FromContext(r.Context()); err == nil {
		page.School = t.Name
	}
	if status == http.StatusServiceUnavailable || status == http.StatusTooManyRequests {
		if w.Header().Get("Retry-After") == "" {
			w.Header().Set("Retry-After", strconv.Itoa(30))
		}
	}
	h.WritePage(w, r, status, PagePolicy, func(out io.Writer) error { return h.tpl.Error(r.Context(), out, page) })
}
