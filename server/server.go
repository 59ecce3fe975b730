package server

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"sync/atomic"
	"time"

	"github.com/gorilla/mux"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/trace"

	"github.com/proctorhq/proctor/account"
	"github.com/proctorhq/proctor/admin"
	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/authz"
	"github.com/proctorhq/proctor/authz/cimd"
	"github.com/proctorhq/proctor/client"
	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/discovery"
	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/factor"
	"github.com/proctorhq/proctor/keys"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/mail"
	"github.com/proctorhq/proctor/mfa"
	"github.com/proctorhq/proctor/operator"
	"github.com/proctorhq/proctor/passkey"
	"github.com/proctorhq/proctor/resource"
	membergraphql "github.com/proctorhq/proctor/resource/graphql"
	mcpendpoint "github.com/proctorhq/proctor/resource/mcp"
	"github.com/proctorhq/proctor/resource/verifier"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/telemetry"
	"github.com/proctorhq/proctor/templates"
)

// Deps are what the server is built from.
type Deps struct {
	Config  config.Server
	Schools *school.Registry
	Store   storage.Store
	Logger  *slog.Logger
	// Only, when OnlyMemberAPI, serves the Member API alone (mountMemberAPI).
	Only string
	// Documents resolves Client ID Metadata Documents; nil builds the resolver from the
	// configuration (system roots, the server file's reviewed_clients). Tests pass one that
	// trusts their own CA.
	Documents authz.MetadataDocuments
	// MailExpanders handle the mail outbox's request entries by kind (mail.Queue.Request).
	MailExpanders map[string]mail.Expander
	// MailRootCAs verifies the SMTP server's certificate; nil: the system's roots. Tests pass
	// their own CA.
	MailRootCAs *x509.CertPool
	// MailboxHandler, when set, is mounted on the internal listener at /mail and below (the
	// demo's mailbox).
	MailboxHandler http.Handler
	// Tracing, when set, traces requests, the authorization server's handlers, token
	// verifications and document fetches, and adds trace ids to the log (docs/tracing.md); nil
	// (telemetry.otlp_endpoint unset) traces nothing. The store's statements are traced by the
	// store itself (gormstore.Config.Tracer).
	Tracing trace.TracerProvider
	// AppearanceCache is how long a replica reuses a school's appearance it read for its pages
	// (zero: DefaultAppearanceCache; negative: read it for every page). A change through this
	// replica's operator API is shown at once; with Redis (redis.url) other replicas show it on
	// their next page too, and without Redis (or while it does not answer) within this long.
	AppearanceCache time.Duration
	// PurgeInterval is how often the purge job runs (zero: every minute; negative: never, for
	// tests that count the statements a request sends and call the job themselves).
	PurgeInterval time.Duration
}

// Server owns the public and internal HTTP servers.
type Server struct {
	deps     Deps
	log      *slog.Logger
	public   *http.Server
	internal *http.Server
	metrics  *metrics
	trusted  []netip.Prefix
	// verifier checks bearer tokens for every protected resource and for introspection.
	verifier     resource.Verifier
	shuttingDown atomic.Bool
	// loginLimiter is the shared sign-in rate limiter when redis.url is set; Serve closes it.
	loginLimiter *login.RedisLimiter
	// pages is the login handler, which draws the error pages (nil when only the Member API is
	// served).
	pages *login.Handler
	// looksVersions announces appearance changes to every replica when redis.url is set,
	// through the login limiter's Redis client.
	looksVersions *appearanceVersions
	// mailQueue takes outgoing e-mail; mailWorker, when mail is configured, sends it.
	mailQueue  *mail.Queue
	mailWorker *mail.Worker
	// mailExpanders are the outbox request handlers of the mounted handlers (account).
	mailExpanders map[string]mail.Expander
	// audit is the one recorder of security events every handler records through, counting
	// them in metrics; nil when the store keeps no log (a stand-in store in some tests).
	audit *audit.Recorder
	// clients is the one client manager: the operator pages create and rotate secrets with the
	// hasher the token and revocation endpoints check them with.
	clients *client.Manager
	// tracer is nil when tracing is off.
	tracer trace.Tracer
	// publicRouter and internalRouter are the listeners' routers, inside their middleware
	// (Routes lists their routes).
	publicRouter, internalRouter *mux.Router
}

// New builds both listeners' handlers; nothing listens until Run or Serve.
func New(d Deps) (*Server, error) {
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	if d.Tracing != nil {
		d.Logger = slog.New(telemetry.LogHandler(d.Logger.Handler()))
	}
	// Entries that do not parse were reported by config validation; they trust nobody here.
	trusted, _ := config.ParseTrustedProxies(d.Config.TrustedProxies)
	s := &Server{deps: d, log: d.Logger, metrics: newMetrics(prometheus.NewRegistry(), d.Store), trusted: trusted,
		clients: client.NewManager(d.Store, d.Config.Secret), tracer: telemetry.Tracer(d.Tracing, "github.com/proctorhq/proctor/server")}
	s.metrics.app.start(schoolIDs(d.Schools))
	if log, ok := d.Store.(audit.Store); ok {
		s.audit = audit.NewRecorder(log, d.Logger, audit.WithCounter(s.metrics.securityEvent))
	}
	s.warnPrivateNetworks()
	if err := s.setUpMail(); err != nil {
		return nil, err
	}
	h := d.Config.HTTP
	newHTTP := func(handler http.Handler) *http.Server {
		return &http.Server{
			Handler:           handler,
			ReadHeaderTimeout: h.ReadHeaderTimeout,
			ReadTimeout:       h.ReadTimeout,
			WriteTimeout:      h.WriteTimeout,
			IdleTimeout:       h.IdleTimeout,
			MaxHeaderBytes:    32 << 10,
			ErrorLog:          slog.NewLogLogger(d.Logger.Handler(), slog.LevelWarn),
		}
	}
	public, err := s.publicHandler()
	if err != nil {
		return nil, err
	}
	s.public = newHTTP(public)
	s.internal = newHTTP(s.internalHandler())
	if err := s.setUpMailWorker(); err != nil {
		return nil, err
	}
	return s, nil
}

// PublicHandler is the public listener's handler (tests serve it with httptest).
func (s *Server) PublicHandler() http.Handler { return s.public.Handler }

// InternalHandler is the internal listener's handler.
func (s *Server) InternalHandler() http.Handler { return s.internal.Handler }

// Clients returns the client manager the operator pages and the authorization server share:
// a client it creates has a secret the token endpoint accepts.
func (s *Server) Clients() *client.Manager { return s.clients }

func (s *Server) publicHandler() (http.Handler, error) {
	r := mux.NewRouter()
	r.Use(recordRoute)
	mount := s.mountAll
	if s.deps.Only == OnlyMemberAPI {
		mount = s.mountMemberAPI
	}
	if err := mount(r); err != nil {
		return nil, err
	}
	s.publicRouter = r
	r.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeNotFound(w)
	})
	r.MethodNotAllowedHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeMethodNotAllowed(w)
	})
	var h http.Handler = r
	h = httpsOnly(h)
	// After the school is known: a page's 413 is drawn in the member's language and the school's look.
	h = limitBody(h, s.deps.Config.HTTP.MaxBodyBytes, s.tooLarge(s.deps.Config.HTTP.MaxBodyBytes))
	h = s.resolveSchool(h)
	h = s.observe("public", h)
	h = s.traceRequests("public", h)
	h = securityHeaders(h)
	h = s.requestInfo(h)
	return s.recoverPanics(h), nil
}

// schoolIDs are the ids of the schools the server serves at start-up (none without a registry).
func schoolIDs(reg *school.Registry) []int64 {
	if reg == nil {
		return nil
	}
	var ids []int64
	for _, t := range reg.All() {
		ids = append(ids, t.SchoolID)
	}
	return ids
}

// warnPrivateNetworks says, once per school at start-up, that the school may fetch Client ID
// Metadata Documents from loopback and private addresses: a development setting that lets a
// client_id URL reach services inside the network (draft-ietf-oauth-client-id-metadata-document,
// section 8.6), never meant for production.
func (s *Server) warnPrivateNetworks() {
	if s.deps.Schools == nil {
		return
	}
	for _, t := range s.deps.Schools.All() {
		if t.CIMD.AllowPrivateNetworks {
			s.log.Warn("cimd.allow_private_networks is on: client metadata documents may be fetched from loopback and private addresses; use it for development and tests only",
				"school_id", t.SchoolID, "subdomain", t.Subdomain)
		}
	}
}

// mountAll mounts everything a full Proctor serves: discovery, login and consent, the operator
// pages, the authorization server and the resource server, all verifying tokens through the
// store.
func (s *Server) mountAll(r *mux.Router) error {
	d := s.deps
	pages, err := templates.New()
	if err != nil {
		return err
	}
	// Without Redis the limiter stays nil: consent counts in this process's memory.
	var limiter login.Limiter
	if redisURL := d.Config.Redis.URL; len(redisURL) > 0 {
		rl, err := login.NewRedisLimiter(string(redisURL), login.RedisOptions{KeyPrefix: d.Config.Redis.KeyPrefix, Logger: d.Logger})
		if err != nil {
			return err
		}
		s.loginLimiter, limiter = rl, rl
		s.log.Info("login rate limits are counted in Redis, shared by every replica using it", "addr", rl.Addr())
		s.looksVersions = newAppearanceVersions(rl.Client(), d.Config.Redis.KeyPrefix, d.Logger)
	}
	// Operators' unlocks (`proctor members unlock`) live in the database, so every replica
	// honours them whatever the limiter; gormstore implements them.
	unlocks, _ := d.Store.(login.Unlocks)
	if unlocks == nil {
		s.log.Warn("the store keeps no account unlocks: `proctor members unlock` has no effect on this server")
	}
	// Second factors live in the store's factor tables (gormstore); a store without them asks
	// no one for a second factor.
	var factors login.SecondFactors
	var mfaService *mfa.Service
	if fs, ok := d.Store.(factor.Store); ok {
		if mfaService, err = mfa.NewService(mfa.ServiceDeps{Store: fs, Secret: d.Config.Secret}); err != nil {
			return err
		}
		factors = mfaService
	}
	var acct *account.Handler
	looks := s.schoolLooks(s.looksVersions)
	login, err := login.New(login.Deps{
		Store: d.Store, Secret: d.Config.Secret, Templates: pages, Logger: d.Logger, Limiter: limiter, Unlocks: unlocks,
		HashSlots: d.Config.Login.HashConcurrency, HashWait: d.Config.Login.HashWait, Audit: s.audit, Factors: factors,
		Look: looks.page, Assets: looks.serve,
	})
	if err == nil {
		acct, err = s.accountPages(login, pages, limiter, looks.page)
	}
	if err != nil {
		s.closeRedis(context.Background())
		return err
	}
	signing := keys.NewManager(d.Store, d.Config.Secret, keys.Options{})
	documents := d.Documents
	if documents == nil {
		documents = cimd.New(d.Config.ReviewedClients, cimd.Options{Logger: d.Logger, Fetched: s.metrics.app.documentFetched, Tracer: telemetry.Tracer(d.Tracing, "github.com/proctorhq/proctor/authz/cimd")})
	}
	tokens := verifier.New(d.Store, authz.TokenHMACKey(d.Config.Secret), nil)
	s.verifier = s.traceVerifier(surfaceIntrospect, tokens)
	app := s.metrics.app

	discovery.New(discovery.Deps{Catalog: d.Store, Logger: d.Logger}).Mount(r)
	r.Handle(endpoint.JWKS, idTokensOnly(signing.JWKSHandler())).Methods(http.MethodGet, http.MethodHead)
	r.Use(login.Localize)
	login.Mount(r)
	s.pages = login
	if mfaService != nil {
		pagesMFA, err := mfa.New(mfa.Deps{Service: mfaService, Login: login, Templates: pages, Logger: d.Logger, Audit: s.audit})
		if err != nil {
			return err
		}
		pagesMFA.Mount(r)
	}
	var inviter operator.Inviter
	var memberMail admin.MemberMail
	if acct != nil {
		acct.Mount(r)
		inviter, memberMail = acct.Service(), acct.Service()
	}
	pk, err := s.passkeyPages(login, pages, limiter)
	if err != nil {
		return err
	}
	if pk != nil {
		pk.Mount(r)
	}
	// A store that keeps second factors offers their summaries and reset to member
	// administration.
	factorAdmin, _ := d.Store.(factor.Admin)
	admin.New(admin.Deps{
		Store: d.Store, Clients: s.clients, Login: login, Templates: pages, Logger: d.Logger,
		Accounts: memberMail, Factors: factorAdmin, Audit: s.audit,
	}).Mount(r)
	authz.New(authz.Deps{
		Store: d.Store, Secret: d.Config.Secret, Login: login, Keys: signing,
		Verifier:     s.traceVerifier(surfaceUserinfo, verifyVerdicts{Verifier: tokens, surface: surfaceUserinfo, m: app}),
		Integrations: d.Config.Integrations, Documents: documents, Logger: d.Logger,
		Audit: s.audit, Counters: app.counters(), Tracing: d.Tracing,
	}).Mount(r)
	membergraphql.New(membergraphql.Deps{Store: d.Store, Verifier: s.door(surfaceGraphQL, tokens), Logger: d.Logger}).Mount(r)
	mcpendpoint.New(mcpendpoint.Deps{Store: d.Store, Verifier: s.door(surfaceMCP, tokens), Logger: d.Logger, Version: Version()}).Mount(r)
	files, _ := d.Store.(operator.FileRows)
	operator.New(operator.Deps{Store: d.Store, Directory: d.Store, Files: files, Verifier: s.door(surfaceOperator, tokens), Logger: d.Logger, StorageDir: operator.DefaultStorageDir(d.Config.Database), MaxBodyBytes: d.Config.HTTP.MaxBodyBytes, Inviter: inviter, Audit: s.audit, SchoolChanged: looks.forget}).Mount(r)
	return nil
}

// accountPages builds the invitation, recovery and account pages, and gives their outbox
// request handlers to the mail worker. They need the store's account tables and the mail
// outbox; without them (a stand-in store in some tests) there are no such pages. look gives
// the e-mails the mail worker writes their school's look.
func (s *Server) accountPages(login *login.Handler, pages *templates.Set, limiter login.Limiter, look func(context.Context, *school.School) templates.Look) (*account.Handler, error) {
	d := s.deps
	store, ok := d.Store.(account.Store)
	if !ok || s.mailQueue == nil {
		s.log.Warn("the store keeps no account tables or mail outbox: no invitations, password recovery or account page")
		return nil, nil
	}
	var schools func(int64) (*school.School, bool)
	if d.Schools != nil {
		schools = d.Schools.BySchoolID
	}
	svc, err := account.NewService(account.ServiceDeps{
		Store: store, Mail: s.mailQueue, Templates: pages, Secret: d.Config.Secret, Limiter: limiter,
		Schools: schools, Logger: d.Logger, Audit: s.audit, Look: look,
		// In one of the sign-in form's hash slots, as every password hash of a web form.
		HashNew: login.HashNewPassword,
	})
	if err != nil {
		return nil, err
	}
	s.mailExpanders = svc.Expanders()
	return account.New(account.Deps{Service: svc, Login: login})
}

// passkeyPages builds the passkey pages and ceremonies when the store keeps passkeys (a
// stand-in store in some tests does not: then there are none).
func (s *Server) passkeyPages(login *login.Handler, pages *templates.Set, limiter login.Limiter) (*passkey.Handler, error) {
	d := s.deps
	store, ok := d.Store.(passkey.Store)
	if !ok {
		s.log.Warn("the store keeps no passkeys: no passkey pages")
		return nil, nil
	}
	return passkey.New(passkey.Deps{
		Store: store, Login: login, Templates: pages, Secret: d.Config.Secret, Limiter: limiter, Audit: s.audit, Logger: d.Logger,
	})
}

// OnlyMemberAPI is the Deps.Only value of `proctor serve --only member-api`.
const OnlyMemberAPI = "member-api"

// mountMemberAPI mounts the Member API alone, for a process that runs apart from the
// authorization server (spec: a Member API service may validate tokens over a private network).
// Tokens are verified through the authorization server's internal introspection endpoint;
// member data comes from the shared database. The protected-resource metadata is served so
// that challenges point somewhere real; the authorization server's own documents are not.
func (s *Server) mountMemberAPI(r *mux.Router) error {
	d := s.deps
	m := d.Config.MemberAPI
	if m.IntrospectionURL == "" || len(m.APIKey) == 0 {
		return errors.New("serve --only member-api needs member_api.introspection_url and member_api.api_key")
	}
	verifier := resource.NewRemoteVerifier(m.IntrospectionURL, m.APIKey)
	s.verifier = s.traceVerifier(surfaceIntrospect, verifier)
	discovery.New(discovery.Deps{}).MountResourceMetadata(r)
	membergraphql.New(membergraphql.Deps{Store: d.Store, Verifier: s.door(surfaceGraphQL, verifier), Logger: d.Logger}).Mount(r)
	return nil
}

// idTokensOnly serves the JWKS only at schools that issue ID tokens: a school without them
// publishes no jwks_uri (spec, Authentication 9).
func idTokensOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if t, err := school.FromContext(r.Context()); err != nil || !t.Features.IDTokens {
			writeNotFound(w)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Run listens on the configured addresses and serves until ctx is cancelled, then shuts down
// gracefully (see Serve).
func (s *Server) Run(ctx context.Context) error {
	pub, err := net.Listen("tcp", s.deps.Config.Public.Addr)
	if err != nil {
		return fmt.Errorf("public listener: %w", err)
	}
	in, err := net.Listen("tcp", s.deps.Config.Internal.Addr)
	if err != nil {
		pub.Close()
		return fmt.Errorf("internal listener: %w", err)
	}
	return s.Serve(ctx, pub, in)
}

// Serve serves on the given listeners until ctx is cancelled or one of them fails. On
// cancellation it marks itself not ready, stops accepting connections, lets in-flight requests
// finish for up to the configured grace period, then returns.
func (s *Server) Serve(ctx context.Context, public, internal net.Listener) error {
	s.log.InfoContext(ctx, "listening", "public", public.Addr().String(), "internal", internal.Addr().String())
	purgeCtx, stopPurge := context.WithCancel(ctx)
	defer stopPurge()
	if s.deps.PurgeInterval >= 0 {
		go s.purgeLoop(purgeCtx)
	}
	stopMail := s.startMail(ctx)
	errc := make(chan error, 2)
	go func() { errc <- s.public.Serve(public) }()
	go func() { errc <- s.internal.Serve(internal) }()

	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-errc:
	}
	s.shuttingDown.Store(true)
	grace := s.deps.Config.HTTP.ShutdownGrace
	s.log.InfoContext(ctx, "shutting down", "grace", grace.String())
	shutdownCtx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	// Shut the public listener first so load balancers see /readyz fail while work drains.
	errPub := s.public.Shutdown(shutdownCtx)
	errIn := s.internal.Shutdown(shutdownCtx)
	// After the listeners: a request in flight may still enqueue a message (it goes at the
	// next start, or from another replica). The worker finishes the message it is sending.
	stopMail()
	// Only after the public listener drained: a sign-in in flight still counts in Redis.
	s.closeRedis(shutdownCtx)
	if errors.Is(serveErr, http.ErrServerClosed) {
		serveErr = nil
	}
	return errors.Join(serveErr, errPub, errIn)
}

// closeRedis closes the Redis client (the login limiter's, which the appearance versions share),
// if any.
func (s *Server) closeRedis(ctx context.Context) {
	if s.loginLimiter != nil {
		if err := s.loginLimiter.Close(); err != nil {
			s.log.WarnContext(ctx, "closing the login limiter's Redis client", "err", err)
		}
	}
}

// readyTimeout bounds the database ping of /readyz so a hung database fails the probe instead
// of hanging it.
const readyTimeout = 2 * time.Second
