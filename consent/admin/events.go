package admin

import "github.com/gorilla/mux"

// mountEvents registers the security event log's page (/admin/security-events).
func (h *Handler) mountEvents(r *mux.Router) {}
