package account

import "github.com/gorilla/mux"

// mountAccount registers /account and its forms.
func (h *Handler) mountAccount(r *mux.Router) {}
