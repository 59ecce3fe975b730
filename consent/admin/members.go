package admin

import "github.com/gorilla/mux"

// mountMembers registers the member administration pages (/admin/members).
func (h *Handler) mountMembers(r *mux.Router) {}
