package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/resource"
)

func (s *Server) internalHandler() http.Handler {
	r := mux.NewRouter()
	r.Use(recordRoute)
	r.HandleFunc("/healthz", healthz).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc("/readyz", s.readyz).Methods(http.MethodGet, http.MethodHead)
	r.Handle("/metrics", s.metrics.handler()).Methods(http.MethodGet)
	if key := s.deps.Config.Internal.APIKey; len(key) > 0 {
		r.Handle(resource.IntrospectPath, s.traceRequests("internal", resource.IntrospectionHandler(s.verifier, s.deps.Schools, key))).Methods(http.MethodPost)
		r.PathPrefix(pprofPrefix).Handler(edge.RequireAPIKey(key, resource.InternalRealm, pprofHandler())).Methods(http.MethodGet)
	}
	if s.deps.MailboxHandler != nil {
		r.PathPrefix("/mail").Handler(s.deps.MailboxHandler).Methods(http.MethodGet)
	}
	s.internalRouter = r
	r.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { writeNotFound(w) })
	r.MethodNotAllowedHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { writeMethodNotAllowed(w) })
	return s.recoverPanics(s.requestInfo(s.observe("internal", r)))
}

// healthz says the process is alive: it answers whenever the process can serve HTTP at all,
// the database aside.
func healthz(w http.ResponseWriter, r *http.Request) {
	edge.WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// startingHandler is the internal listener's handler while `proctor serve` waits for its
// database at start-up: alive (/healthz 200) but not ready (/readyz 503 "starting"), so that an
// orchestrator neither restarts the process nor sends it work. /metrics and the rest wait for
// the real server (they need the store).
func startingHandler() *mux.Router {
	r := mux.NewRouter()
	r.HandleFunc("/healthz", healthz).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc("/readyz", func(w http.ResponseWriter, r *http.Request) {
		edge.WriteJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "starting"})
	}).Methods(http.MethodGet, http.MethodHead)
	r.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { writeNotFound(w) })
	r.MethodNotAllowedHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { writeMethodNotAllowed(w) })
	return r
}

// Starting serves the internal listener before the Server exists (startingHandler), then hands
// the listener, still open, to Server.Serve: a probe never finds the port closed between the
// two, and connections waiting in the listen queue are answered by whichever serves them.
type Starting struct {
	srv  *http.Server
	l    *handoffListener
	done chan error
}

// deadliner is a listener whose Accept can be interrupted without closing it (*net.TCPListener
// and *net.UnixListener are).
type deadliner interface {
	net.Listener
	SetDeadline(time.Time) error
}

// handoffListener is the listener as the start-up server sees it: closing it (which Shutdown
// does) only interrupts Accept, so that the socket survives for the real server.
type handoffListener struct{ deadliner }

func (l *handoffListener) Close() error { return l.SetDeadline(time.Unix(1, 0)) }

// ServeStarting answers on l with startingHandler until Handover.
func ServeStarting(l net.Listener, log *slog.Logger) (*Starting, error) {
	d, ok := l.(deadliner)
	if !ok {
		return nil, fmt.Errorf("internal listener: %T cannot be handed over", l)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Starting{
		srv: &http.Server{
			Handler:           startingHandler(),
			ReadHeaderTimeout: 5 * time.Second,
			ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		},
		l:    &handoffListener{d},
		done: make(chan error, 1),
	}
	go func() { s.done <- s.srv.Serve(s.l) }()
	return s, nil
}

// Handover stops answering, waits for the requests in flight, and returns the listener, open
// and accepting again, for Server.Serve.
func (s *Starting) Handover(ctx context.Context) (net.Listener, error) {
	// Shutdown marks the server closed before it closes (here: interrupts) the listener, so its
	// Accept loop returns instead of retrying the timeout.
	err := s.srv.Shutdown(ctx)
	if serveErr := <-s.done; !errors.Is(serveErr, http.ErrServerClosed) {
		err = errors.Join(err, serveErr)
	}
	if err != nil {
		_ = s.l.deadliner.Close()
		return nil, fmt.Errorf("internal listener: %w", err)
	}
	if err := s.l.SetDeadline(time.Time{}); err != nil {
		_ = s.l.deadliner.Close()
		return nil, fmt.Errorf("internal listener: %w", err)
	}
	return s.l.deadliner, nil
}

// Close stops answering and closes the listener (start-up failed).
func (s *Starting) Close() error {
	err := s.srv.Close()
	<-s.done
	return errors.Join(err, s.l.deadliner.Close())
}

// readyz fails while shutting down (so a load balancer stops sending work) and when the
// database does not answer within readyTimeout.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	if s.shuttingDown.Load() {
		edge.WriteJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "shutting down"})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	if err := s.deps.Store.Ping(ctx); err != nil {
		s.log.WarnContext(ctx, "readiness check failed", "error", err)
		edge.WriteJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "database unavailable"})
		return
	}
	edge.WriteJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}

// pprofPrefix is where the runtime profiles are served on the internal listener, behind the
// internal API key: a CPU profile taken during a load run shows where a request's time goes
// (docs/benchmarks.md). Never on the public listener.
const pprofPrefix = "/debug/pprof/"

// pprofHandler serves net/http/pprof's pages without touching http.DefaultServeMux (importing
// the package registers them there; nothing in Proctor serves that mux).
func pprofHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch name := strings.TrimPrefix(r.URL.Path, pprofPrefix); name {
		case "cmdline":
			pprof.Cmdline(w, r)
		case "profile":
			pprof.Profile(w, r)
		case "symbol":
			pprof.Symbol(w, r)
		case "trace":
			pprof.Trace(w, r)
		default:
			// The index, and named profiles: heap, allocs, goroutine, mutex, block...
			pprof.Index(w, r)
		}
	})
}
