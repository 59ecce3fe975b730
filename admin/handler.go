package admin

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/client"
	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/factor"
	"github.com/proctorhq/proctor/i18n"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/roster"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/templates"
)

// Paths served by Mount.
const (
	AppsPath   = "/admin/developers/oauth-applications"
	NewAppPath = AppsPath + "/new"
)

// Store is what the pages read and change in the store themselves; clients are created, rotated
// and deleted through Deps.Clients. The events page also reads the security event log when the
// store keeps it (audit.Store), and the member pages need roster.Store.
type Store interface {
	// ListClients lists the school's clients of a kind, oldest first.
	ListClients(ctx context.Context, kind storage.ClientKind, page storage.Page) (clients []storage.Client, next string, err error)
	GetClient(ctx context.Context, id string) (storage.Client, error)
	GetMember(ctx context.Context, id int64) (storage.Member, error)
	GetMemberByEmail(ctx context.Context, email string) (storage.Member, error)
	GetRoles(ctx context.Context, memberID int64) ([]storage.Role, error)
	SetSchoolRoles(ctx context.Context, memberID int64, roles []storage.Role) ([]storage.Role, error)
	// Transactions group a change with the checks it depends on and its security event
	// (storage.InTx): they commit together or not at all.
	storage.Transactions
}

// Deps are what the handler is built from. Store, Clients, Consent and Templates are required.
type Deps struct {
	Store Store
	// Clients creates, rotates and deletes the school's clients: the manager the server built,
	// whose hasher the token and revocation endpoints check secrets with.
	Clients *client.Manager
	// Consent provides the member's session, its CSRF token and the error pages.
	Login     *login.Handler
	Templates *templates.Set
	Logger    *slog.Logger     // nil: discard
	Now       func() time.Time // nil: time.Now

	// The member administration pages need Store to implement roster.Store as well
	// (gormstore does); without it they are not mounted.
	//
	// Accounts sends invitations and reset links (account.Service); nil: those actions are
	// not offered.
	Accounts MemberMail
	// Factors reads and resets members' second factors; nil: the pages show none and offer no
	// reset.
	Factors factor.Admin
	// Audit records the operators' changes in the security event log, which the events page
	// reads (through Store, when it keeps the log); nil records nothing.
	Audit *audit.Recorder
}

// Handler serves the OAuth applications pages.
type Handler struct {
	store    Store
	clients  *client.Manager
	roster   roster.Store
	accounts MemberMail
	factors  factor.Admin
	audit    *audit.Recorder
	login    *login.Handler
	tpl      *templates.Set
	log      *slog.Logger
	now      func() time.Time
}

// New returns the handler. Like the other handlers mounted by package server it cannot fail:
// its dependencies are built, and checked, before it.
func New(d Deps) *Handler {
	h := &Handler{
		store: d.Store, login: d.Login, tpl: d.Templates, log: d.Logger, now: d.Now,
		clients: d.Clients, accounts: d.Accounts, factors: d.Factors, audit: d.Audit,
	}
	h.roster, _ = d.Store.(roster.Store)
	h.log, h.now = login.LoggerOrDiscard(h.log), login.ClockOrNow(h.now)
	return h
}

// Mount registers the routes listed in the package documentation.
func (h *Handler) Mount(r *mux.Router) {
	h.mountApplications(r)
	h.mountMembers(r)
	h.mountEvents(r)
}

// mountApplications registers the OAuth applications pages. Every one also requires the
// school's mcp_connections feature: without it none matches, and the router answers as it does
// for any unknown path.
func (h *Handler) mountApplications(r *mux.Router) {
	route := func(path string, fn pageFunc, methods ...string) {
		r.Handle(path, h.operator(requireFeature(fn))).Methods(methods...).MatcherFunc(featureEnabled)
	}
	route(AppsPath, h.list, http.MethodGet)
	route(AppsPath, h.create, http.MethodPost)
	// Before "{id}", so that "new" is the form and never a client id.
	route(NewAppPath, h.newForm, http.MethodGet)
	route(AppsPath+"/{id}", h.show, http.MethodGet)
	route(AppsPath+"/{id}"+actionRotate.path, h.confirmApp(actionRotate), http.MethodGet)
	route(AppsPath+"/{id}"+actionRotate.path, h.rotate, http.MethodPost)
	route(AppsPath+"/{id}"+actionDelete.path, h.confirmApp(actionDelete), http.MethodGet)
	route(AppsPath+"/{id}"+actionDelete.path, h.delete, http.MethodPost)
}

// featureEnabled matches requests of schools that show the pages (the "MCP connections" beta,
// spec Registration rule 5).
func featureEnabled(r *http.Request, _ *mux.RouteMatch) bool {
	t, err := school.FromContext(r.Context())
	return err == nil && t.Features.MCPConnections
}

// visit is an operator's request that passed the checks of operator.
type visit struct {
	school  *school.School
	session login.Session
	roles   []storage.Role // the operator's roles at the school
	// loc writes the page's sentences in the request's language and the school's time zone.
	loc *i18n.Localizer
}

// operatorView is the part of every page that names the signed-in operator.
func (h *Handler) operatorView(v visit) templates.Operator {
	return templates.Operator{
		MemberName: v.session.Member.Name, MemberEmail: v.session.Member.Email, CSRFToken: h.login.CSRFToken(v.session),
	}
}

type pageFunc func(http.ResponseWriter, *http.Request, visit) error

// operator admits only a signed-in owner or admin of the request's school (storage.Role
// IsOperator): no session sends the browser to sign in and back; any other member is refused.
// A session is a sign-in at this school's host only (package login), and the roles are read
// for this school, so an operator of one school is nobody at another.
func (h *Handler) operator(fn pageFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		t, err := school.FromContext(ctx)
		if err != nil {
			edge.WriteError(w, http.StatusNotFound, "not_found", "No such resource.")
			return
		}
		s, err := h.login.Load(r)
		if errors.Is(err, login.ErrNoSession) {
			h.login.RedirectToLogin(w, r)
			return
		}
		if err != nil {
			h.login.Fail(w, r, err)
			return
		}
		if !s.Operator() {
			h.log.InfoContext(ctx, "operator page refused: not an operator", "request_id", edge.FromContext(ctx).ID,
				"school_id", t.SchoolID, "member_id", s.Member.ID)
			loc := i18n.FromContext(ctx)
			h.login.RenderError(w, r, http.StatusForbidden, login.ErrorView{
				Title:   loc.Text("admin.refused.title", "School", t.Name),
				Message: loc.Text("admin.refused.message", "School", t.Name),
			})
			return
		}
		// security.operator_mfa: required sends an operator without a second factor to enrol.
		if ok, err := h.login.OperatorFactorGate(w, r, s, false); err != nil || !ok {
			if err != nil {
				h.login.Fail(w, r, err)
			}
			return
		}
		if r.Method == http.MethodPost {
			if err := r.ParseForm(); err != nil {
				h.login.Fail(w, r, login.FormError(err))
				return
			}
		}
		if err := fn(w, r, visit{school: t, session: s, roles: s.Roles, loc: i18n.FromContext(ctx)}); err != nil {
			h.login.Fail(w, r, err)
		}
	})
}

// requireFeature answers 404 at a school without the mcp_connections feature. The routes'
// matcher already requires it; this keeps the pages safe on their own.
func requireFeature(fn pageFunc) pageFunc {
	return func(w http.ResponseWriter, r *http.Request, v visit) error {
		if !v.school.Features.MCPConnections {
			edge.WriteError(w, http.StatusNotFound, "not_found", "No such resource.")
			return nil
		}
		return fn(w, r, v)
	}
}

// checkCSRF checks the form's csrf_token against the session's (login.CheckCSRF), logging a
// failure. The caller answers 403 with its form shown again.
func (h *Handler) checkCSRF(r *http.Request, v visit) bool {
	if h.login.CheckCSRF(r, v.session) {
		return true
	}
	h.log.InfoContext(r.Context(), "operator form refused: CSRF check failed", "request_id", edge.FromContext(r.Context()).ID,
		"school_id", v.school.SchoolID, "member_id", v.session.Member.ID)
	return false
}

// failure is a refusal of the operator pages: the page shown and the one status it is shown
// with.
type failure struct {
	status int
	view   login.ErrorView
}

// with is the failure as the error a page returns (login.PageError), wrapping err (nil when
// there is nothing to log).
func (f failure) with(err error) error {
	return &login.PageError{Status: f.status, View: f.view, Err: err}
}

// The applications pages' failures; RenderError writes their words in the request's language.
var (
	failNoApp     = failure{http.StatusNotFound, login.ErrorView{TitleKey: "admin.app.not_found_title", MessageKey: "admin.app.not_found"}}
	failPublicApp = failure{http.StatusConflict, login.ErrorView{TitleKey: "admin.app.public_title", MessageKey: "admin.app.public"}}
)

// note records an event done by the visiting operator through the request r.
func (h *Handler) note(r *http.Request, v visit, e audit.Event) {
	e.At, e.Actor, e.ActorID = h.now(), audit.ActorOperator, v.session.Member.ID
	h.audit.Note(r.Context(), audit.FromRequest(r, e))
}

// writePage writes an operator page through consent's page writer, under its strict policy.
func (h *Handler) writePage(w http.ResponseWriter, r *http.Request, status int, render func(io.Writer) error) {
	h.login.WritePage(w, r, status, login.PagePolicy, render)
}
