package server

import (
	"context"
	"net/http"

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
