package server

import (
	"context"
	"net/http"
	"net/http/pprof"
	"strings"

	"github.com/gorilla/mux"

	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/resource"
)

func (s *Server) internalHandler() http.Handler {
	r := mux.NewRouter()
	r.Use(recordRoute)
	r.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		edge.WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	}).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc("/readyz", s.readyz).Methods(http.MethodGet, http.MethodHead)
	r.Handle("/metrics", s.metrics.handler()).Methods(http.MethodGet)
	if key := s.deps.Config.Internal.APIKey; len(key) > 0 {
		r.Handle(resource.IntrospectPath, resource.IntrospectionHandler(s.verifier, s.deps.Tenants, key)).Methods(http.MethodPost)
		r.PathPrefix(pprofPrefix).Handler(edge.RequireAPIKey(key, resource.InternalRealm, pprofHandler())).Methods(http.MethodGet)
	}
	r.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { writeNotFound(w) })
	r.MethodNotAllowedHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { writeMethodNotAllowed(w) })
	return s.recoverPanics(s.requestInfo(s.observe("internal", r)))
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
		s.log.Warn("readiness check failed", "error", err)
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
