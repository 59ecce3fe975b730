package server

import (
	"context"
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

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/discovery"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/tenant"
)

// Deps are what the server is built from.
type Deps struct {
	Config  config.Server
	Tenants *tenant.Registry
	Store   storage.Store
	Logger  *slog.Logger
}

// Server owns the public and internal HTTP servers.
type Server struct {
	deps         Deps
	log          *slog.Logger
	public       *http.Server
	internal     *http.Server
	metrics      *metrics
	trusted      []netip.Prefix
	shuttingDown atomic.Bool
}

// New builds both listeners' handlers; nothing listens until Run or Serve.
func New(d Deps) *Server {
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	// Entries that do not parse were reported by config validation; they trust nobody here.
	trusted, _ := config.ParseTrustedProxies(d.Config.TrustedProxies)
	s := &Server{deps: d, log: d.Logger, metrics: newMetrics(prometheus.NewRegistry()), trusted: trusted}
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
	s.public = newHTTP(s.publicHandler())
	s.internal = newHTTP(s.internalHandler())
	return s
}

// PublicHandler is the public listener's handler (tests serve it with httptest).
func (s *Server) PublicHandler() http.Handler { return s.public.Handler }

// InternalHandler is the internal listener's handler.
func (s *Server) InternalHandler() http.Handler { return s.internal.Handler }

func (s *Server) publicHandler() http.Handler {
	r := mux.NewRouter()
	r.Use(recordRoute)
	discovery.New().Mount(r)
	r.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeNotFound(w)
	})
	r.MethodNotAllowedHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeMethodNotAllowed(w)
	})
	var h http.Handler = r
	h = s.resolveTenant(h)
	h = limitBody(h, s.deps.Config.HTTP.MaxBodyBytes)
	h = s.observe("public", h)
	h = securityHeaders(h)
	h = s.requestInfo(h)
	return s.recoverPanics(h)
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
	s.log.Info("listening", "public", public.Addr().String(), "internal", internal.Addr().String())
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
	s.log.Info("shutting down", "grace", grace.String())
	shutdownCtx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	// Shut the public listener first so load balancers see /readyz fail while work drains.
	errPub := s.public.Shutdown(shutdownCtx)
	errIn := s.internal.Shutdown(shutdownCtx)
	if errors.Is(serveErr, http.ErrServerClosed) {
		serveErr = nil
	}
	return errors.Join(serveErr, errPub, errIn)
}

// readyTimeout bounds the database ping of /readyz so a hung database fails the probe instead
// of hanging it.
const readyTimeout = 2 * time.Second
