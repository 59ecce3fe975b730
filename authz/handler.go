package authz

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/gorilla/mux"
	"github.com/ory/fosite"
	"go.opentelemetry.io/otel/trace"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/client"
	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/keys"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/resource"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/telemetry"
)

// Deps are the authorization server's dependencies.
type Deps struct {
	Store    Store
	Secret   config.Secret
	Login    *login.Handler
	Keys     *keys.Manager
	Verifier resource.Verifier
	// Integrations are the deployment's vendor platforms (server file).
	Integrations []config.Integration
	// Documents resolves Client ID Metadata Documents; nil resolves none.
	Documents MetadataDocuments
	Logger    *slog.Logger
	Now       func() time.Time
	// Audit records consent decisions and the grants revoked on refresh token reuse in the
	// security event log; nil records nothing.
	Audit *audit.Recorder
	// Counters are told of the tokens issued and the grants revoked (metrics); the zero value
	// tells no one.
	Counters Counters
	// Tracing, when set, gives each endpoint's handling a span (token, authorize, revoke,
	// userinfo, register); nil traces nothing.
	Tracing trace.TracerProvider
}

// Handler serves the authorization server's endpoints.
type Handler struct {
	store    endpointStore
	login    *login.Handler
	verifier resource.Verifier
	log      *slog.Logger
	now      func() time.Time
	p        *provider
	adapter  *fositeStore
	clients  *clientSource
	audit    *audit.Recorder
	counters Counters
	tracer   trace.Tracer
}

// TokenHMACKey is the key tokens and codes are signed with; resource servers need the same one.
func TokenHMACKey(s config.Secret) []byte { return s.Derive("token hmac") }

// New composes the fosite provider and returns the handler.
func New(d Deps) *Handler {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	// Client secrets are checked with the hasher every client.Manager built from the same
	// system secret hashes them with.
	cfg := newFositeConfig(TokenHMACKey(d.Secret), client.NewSecretHasher(d.Secret))
	clients := &clientSource{store: d.Store, integrations: d.Integrations, documents: d.Documents}
	st := &fositeStore{grants: d.Store, tx: d.Store, clients: clients, now: func() time.Time { return d.Now().UTC() },
		audit: d.Audit, log: d.Logger, counters: d.Counters}
	return &Handler{
		store:    d.Store,
		login:    d.Login,
		verifier: d.Verifier,
		log:      d.Logger,
		now:      d.Now,
		p:        newProvider(cfg, st, d.Keys),
		adapter:  st,
		clients:  clients,
		audit:    d.Audit,
		counters: d.Counters,
		tracer:   telemetry.Tracer(d.Tracing, "github.com/proctorhq/proctor/authz"),
	}
}

// Mount registers the routes listed in the package documentation. With tracing on, each
// endpoint's handling (fosite's work and the statements it sends included) runs in a span of its
// own (docs/tracing.md).
func (h *Handler) Mount(r *mux.Router) {
	r.Handle(endpoint.Authorize, telemetry.Handler(h.tracer, "oauth2 authorize", h.adapter.perRequest(h.authorize))).Methods(http.MethodGet, http.MethodPost)
	r.Handle(endpoint.Token, telemetry.Handler(h.tracer, "oauth2 token", h.adapter.perRequest(h.token))).Methods(http.MethodPost)
	r.Handle(endpoint.Revoke, telemetry.Handler(h.tracer, "oauth2 revoke", h.adapter.perRequest(h.revoke))).Methods(http.MethodPost)
	r.Handle(endpoint.Userinfo, telemetry.Handler(h.tracer, "oauth2 userinfo", h.adapter.perRequest(h.userinfo))).Methods(http.MethodGet, http.MethodPost)
	r.Handle(endpoint.Register, telemetry.Handler(h.tracer, "oauth2 register", h.adapter.perRequest(h.register))).Methods(http.MethodPost)
}

// logError records what the client is not told: the cause behind the error, and the request
// id the client saw in X-Request-ID, so that an answer can be matched with its log line.
func (h *Handler) logError(ctx context.Context, msg string, err error) {
	h.log.LogAttrs(ctx, slog.LevelWarn, msg,
		slog.String("request_id", edge.FromContext(ctx).ID), slog.String("error", logDetail(err)))
}

// logDetail spells out an error for the log. A fosite error prints only its code (a storage
// outage during client authentication prints "invalid_client"): the cause it wraps, or its
// debug text, says what happened.
func logDetail(err error) string {
	msg := err.Error()
	var e *fosite.RFC6749Error
	if !errors.As(err, &e) {
		return msg
	}
	switch {
	case e.Cause() != nil:
		return msg + ": " + logDetail(e.Cause())
	case e.DebugField != "":
		return msg + ": " + e.DebugField
	}
	return msg
}

// requestSchool returns the request's school; without one it answers 404 and returns false.
func requestSchool(w http.ResponseWriter, r *http.Request) (*school.School, bool) {
	t, err := school.FromContext(r.Context())
	if err != nil {
		http.NotFound(w, r)
		return nil, false
	}
	return t, true
}
