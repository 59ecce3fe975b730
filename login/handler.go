package login

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/password"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/templates"
)

// Paths served by Mount.
const (
	LoginPath  = "/login"
	DonePath   = "/login/done"
	LogoutPath = "/logout"
)

// Session lifetimes used when Deps leaves them zero.
const (
	DefaultIdleTimeout     = 30 * time.Minute
	DefaultAbsoluteTimeout = 12 * time.Hour
)

// PagePolicy is the Content-Security-Policy of every page except the consent page: nothing but
// our own stylesheet and images loads, forms post only to this origin, and no one may frame it.
const PagePolicy = "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// ConsentPolicy is PagePolicy without form-action. Chrome and Safari apply form-action to
// every redirect that follows a form submission, not only to the form's action (CSP issue
// w3c/webappsec-csp#8), and the consent form exists to end in a redirect to the client's
// redirect URI on another origin, sometimes followed by a hop to an app's own scheme. With
// form-action 'self' those browsers would cancel that redirect after the code was issued. The
// page loads no script and escapes every value, so no injected form can take its place.
const ConsentPolicy = "default-src 'none'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'"

// Deps are what the handler is built from.
type Deps struct {
	Store Store
	// Secret keys the session-id hash and the CSRF tokens (each through a key derived for it).
	Secret    config.Secret
	Templates *templates.Set
	Logger    *slog.Logger     // nil: discard
	Now       func() time.Time // nil: time.Now
	// Limiter counts failed sign-ins; nil: a MemoryLimiter (per process).
	Limiter Limiter
	// AccountLimit, AddressLimit and DeviceLimit are the failure budgets per e-mail, per
	// client address and per known-device cookie (zero: DefaultAccountLimit,
	// DefaultAddressLimit, DefaultDeviceLimit).
	AccountLimit, AddressLimit, DeviceLimit Limit
	// Unlocks holds operators' lifts of account lockouts; nil: lockouts are lifted only by
	// their windows ending.
	Unlocks Unlocks
	// DeviceLifetime is how long a known-device cookie is honoured (zero:
	// DefaultDeviceLifetime).
	DeviceLifetime time.Duration
	// HashSlots bounds the password hashes run at once (zero: DefaultHashSlots()); HashWait is
	// how long a sign-in waits for a slot before it is refused with 503 (zero:
	// DefaultHashWait; negative: no wait).
	HashSlots int
	HashWait  time.Duration
	// IdleTimeout ends a session not used for that long; AbsoluteTimeout ends any session that
	// long after sign-in (zero: DefaultIdleTimeout, DefaultAbsoluteTimeout).
	IdleTimeout, AbsoluteTimeout time.Duration
	// OnSignIn, if set, is called after each successful password sign-in, once the session is
	// started, with the request and the member (without PasswordHash), for whatever must hear
	// of it beyond the security event log (Audit records every attempt); it runs on the
	// request's goroutine before the redirect is written, so it should be quick and must report
	// its own failures (a sign-in is not undone by them).
	OnSignIn func(ctx context.Context, r *http.Request, m storage.Member)
	// Factors are members' second factors (package mfa); nil: no second sign-in step.
	Factors SecondFactors
	// FactorLimit is the failure budget of the second step per member (zero: 5 per
	// AccountLimit's window); the address's is AddressLimit, shared with passwords.
	FactorLimit Limit
	// Audit records sign-ins (succeeded, failed, throttled) and uses of second factors in the
	// security event log; nil records nothing.
	Audit *audit.Recorder
	// Look gives the school's theme, stylesheet and logo to its pages (Localize); nil: the
	// plain look of every school.
	Look func(ctx context.Context, t *school.School) templates.Look
	// Assets serves the school's own assets (its stylesheet and logo) under
	// endpoint.Assets before the pages' own; it reports whether it answered. nil: none.
	Assets func(w http.ResponseWriter, r *http.Request) bool
}

// Handler serves the sign-in pages and offers the session, consent-page and CSRF functions the
// authorization endpoint uses.
type Handler struct {
	audit                                   *audit.Recorder
	store                                   Store
	tpl                                     *templates.Set
	log                                     *slog.Logger
	now                                     func() time.Time
	limiter                                 Limiter
	accountLimit, addressLimit, deviceLimit Limit
	unlocks                                 Unlocks
	deviceLifetime                          time.Duration
	gate                                    *hashGate
	// verify checks a password against a stored hash (password.Verify; tests wrap it to hold
	// hashes in flight).
	verify         func(pw, hash string) error
	idle, absolute time.Duration
	// sessionKey hashes session tokens into store ids; csrfKey makes CSRF tokens. Separate
	// keys, derived from the system secret, so that neither value can stand in for the other;
	// deviceKey signs known-device cookies.
	sessionKey, csrfKey, deviceKey []byte
	onSignIn                       func(ctx context.Context, r *http.Request, m storage.Member)
	factors                        SecondFactors
	factorLimit                    Limit
	// pendingKey signs the pending sign-in cookie of the second step.
	pendingKey []byte
	look       func(ctx context.Context, t *school.School) templates.Look
	assets     func(w http.ResponseWriter, r *http.Request) bool
}

// New checks d and returns the handler.
func New(d Deps) (*Handler, error) {
	if d.Store == nil {
		return nil, errors.New("login: no store")
	}
	if d.Templates == nil {
		return nil, errors.New("login: no templates")
	}
	if len(d.Secret) < config.MinSecretBytes {
		return nil, fmt.Errorf("login: the secret must hold at least %d bytes", config.MinSecretBytes)
	}
	h := &Handler{
		store: d.Store, tpl: d.Templates, log: d.Logger, now: d.Now, limiter: d.Limiter,
		accountLimit: d.AccountLimit, addressLimit: d.AddressLimit, deviceLimit: d.DeviceLimit,
		unlocks: d.Unlocks, deviceLifetime: d.DeviceLifetime, verify: password.Verify,
		idle: d.IdleTimeout, absolute: d.AbsoluteTimeout, onSignIn: d.OnSignIn, audit: d.Audit,
		sessionKey: d.Secret.Derive("login session id"),
		csrfKey:    d.Secret.Derive("csrf token"),
		deviceKey:  d.Secret.Derive("known device cookie"),
		pendingKey: d.Secret.Derive("pending sign-in v1"),
		factors:    d.Factors, factorLimit: d.FactorLimit, look: d.Look, assets: d.Assets,
	}
	h.log, h.now = LoggerOrDiscard(h.log), ClockOrNow(h.now)
	if h.limiter == nil {
		h.limiter = NewMemoryLimiter(0, h.now)
	}
	h.accountLimit = h.accountLimit.Or(DefaultAccountLimit)
	h.addressLimit = h.addressLimit.Or(DefaultAddressLimit)
	h.deviceLimit = h.deviceLimit.Or(DefaultDeviceLimit)
	h.factorLimit = h.factorLimit.Or(Limit{Max: 5, Window: h.accountLimit.Window})
	if h.deviceLifetime == 0 {
		h.deviceLifetime = DefaultDeviceLifetime
	}
	if d.HashSlots == 0 {
		d.HashSlots = DefaultHashSlots()
	}
	if d.HashWait == 0 {
		d.HashWait = DefaultHashWait
	}
	if d.HashSlots < 0 || h.deviceLifetime < 0 {
		return nil, fmt.Errorf("login: HashSlots (%d) and DeviceLifetime (%v) must not be negative", d.HashSlots, h.deviceLifetime)
	}
	h.gate = newHashGate(d.HashSlots, d.HashWait)
	for _, l := range []Limit{h.accountLimit, h.addressLimit, h.deviceLimit, h.factorLimit} {
		if err := l.Check(); err != nil {
			return nil, fmt.Errorf("login: %w", err)
		}
	}
	if h.idle == 0 {
		h.idle = DefaultIdleTimeout
	}
	if h.absolute == 0 {
		h.absolute = DefaultAbsoluteTimeout
	}
	if h.idle < 0 || h.absolute < time.Minute || h.idle > h.absolute {
		return nil, fmt.Errorf("login: timeouts must satisfy 0 < idle (%v) <= absolute (%v), absolute >= 1m", h.idle, h.absolute)
	}
	return h, nil
}

// Mount registers the routes listed in the package documentation.
func (h *Handler) Mount(r *mux.Router) {
	MountRoutes(r, h.handle, []Route[RequestPage]{
		{Path: LoginPath, Get: h.SignInPage(h.loginForm), Post: h.login},
		{Path: FactorPath, Get: h.factorForm, Post: h.factor},
		{Path: DonePath, Get: h.signedIn},
		{Path: LogoutPath, Get: h.logoutForm, Post: h.logout},
		{Path: LanguagePath, Get: h.switchLanguage},
	})
	r.HandleFunc(endpoint.Assets+"{file}", h.asset).Methods(http.MethodGet, http.MethodHead)
}

// asset serves the stylesheet and the passkey pages' script. Their names carry a hash of their
// content, so they may be cached for good.
func (h *Handler) asset(w http.ResponseWriter, r *http.Request) {
	if h.assets != nil && h.assets(w, r) {
		return
	}
	content, contentType, ok := h.tpl.Asset(r.URL.Path)
	if !ok {
		edge.WriteError(w, http.StatusNotFound, "not_found", "No such resource.")
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", contentType)
	hd.Set("Cache-Control", "public, max-age=31536000, immutable")
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(content))
}

// PageError is a failure shown as an error page with a plain message (the sign-in pages and
// the operator pages use it alike); Err, if any, is only logged.
type PageError struct {
	Status int
	View   ErrorView
	Err    error
}

func (e *PageError) Error() string {
	title := e.View.Title
	if e.View.TitleKey != "" {
		title = e.View.TitleKey
	}
	if e.Err == nil {
		return fmt.Sprintf("%d %s", e.Status, title)
	}
	return fmt.Sprintf("%d %s: %v", e.Status, title, e.Err)
}

func (e *PageError) Unwrap() error { return e.Err }

// FormError is the failure of a form that could not be read: 413 when its body passed the
// server's limit, 400 otherwise.
func FormError(err error) *PageError {
	if edge.TooLarge(err) {
		return &PageError{Status: http.StatusRequestEntityTooLarge, View: viewTooLarge, Err: err}
	}
	return BadForm(err)
}

// BadForm is the failure of a form or a query that holds what no page of ours sends (a bad
// cursor, an unknown role): 400 with the page that says the form could not be read. err may be
// nil.
func BadForm(err error) *PageError {
	return &PageError{Status: http.StatusBadRequest, View: viewBadForm, Err: err}
}

// Unavailable is the failure of a member's form whose rate limiter could not be asked, or whose
// password hash found no free slot: 503 with a page that asks to try again later. (Signing in
// has its own page, viewUnavailable.)
func Unavailable(err error) *PageError {
	return &PageError{Status: http.StatusServiceUnavailable, View: viewTryLater, Err: err}
}

var (
	viewTooLarge    = ErrorView{TitleKey: "errors.too_large.title", MessageKey: "errors.too_large.message"}
	viewBadForm     = ErrorView{TitleKey: "errors.bad_form.title", MessageKey: "errors.bad_form.message"}
	viewUnavailable = ErrorView{TitleKey: "errors.unavailable.title", MessageKey: "errors.unavailable.signin_message"}
	viewTryLater    = ErrorView{TitleKey: "errors.unavailable.title", MessageKey: "errors.unavailable.message"}
	viewInternal    = ErrorView{TitleKey: "errors.internal.title", MessageKey: "errors.internal.message"}
)

// handle adapts a handler that returns an error: the error is logged with the request id and
// the member gets an error page that says nothing about it.
func (h *Handler) handle(fn RequestPage) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := fn(w, r); err != nil {
			h.Fail(w, r, err)
		}
	})
}

// Fail logs err with the request id and shows an error page that says nothing about it: a
// *PageError's own status and view, 503 for a store outage, 500 otherwise.
func (h *Handler) Fail(w http.ResponseWriter, r *http.Request, err error) {
	status, view := http.StatusInternalServerError, viewInternal
	var pe *PageError
	switch {
	case errors.As(err, &pe):
		status, view = pe.Status, pe.View
	case errors.Is(err, storage.ErrUnavailable):
		status, view = http.StatusServiceUnavailable, viewUnavailable
	}
	level := slog.LevelInfo
	if status >= 500 {
		level = slog.LevelError
	}
	h.log.Log(r.Context(), level, "page failed", "request_id", edge.FromContext(r.Context()).ID, "status", status, "err", err)
	h.RenderError(w, r, status, view)
}

// WritePage renders a page into memory first, so that a template failure still leaves room
// for a clean 500, then writes it with the headers every page carries: its own CSP, no
// caching (the pages carry CSRF tokens and member names), no framing.
func (h *Handler) WritePage(w http.ResponseWriter, r *http.Request, status int, policy string, render func(io.Writer) error) {
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		h.log.ErrorContext(r.Context(), "render page", "request_id", edge.FromContext(r.Context()).ID, "err", err)
		w.Header().Set("Cache-Control", "no-store")
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/html; charset=utf-8")
	hd.Set("Cache-Control", "no-store")
	hd.Set("Content-Security-Policy", policy)
	hd.Set("X-Frame-Options", "DENY")
	w.WriteHeader(status)
	_, _ = buf.WriteTo(w)
}

// SeeOther answers 303 See Other, so that the browser follows a POST with a GET.
func SeeOther(w http.ResponseWriter, location string) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Location", location)
	w.WriteHeader(http.StatusSeeOther)
}
