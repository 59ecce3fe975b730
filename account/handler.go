package account

import (
	"errors"
	"fmt"
	"time"

	"github.com/gorilla/mux"

	"github.com/proctorhq/proctor/login"
)

// Deps are what the handler is built from.
type Deps struct {
	// Service invites and resets; the pages use its store, templates, mail queue, limiter,
	// keys, log and clock, so that a page and a command do the same work with the same parts.
	Service *Service
	// Login provides sessions, CSRF, the current-password check and the page writer.
	Login *login.Handler
	// ResetAddressLimit bounds forgotten-password forms per client address (zero:
	// DefaultResetAddressLimit).
	ResetAddressLimit login.Limit
}

// DefaultResetAddressLimit is how many forgotten-password forms one client address may post: a
// budget of the client, never of the account, so that its answer says nothing about accounts.
var DefaultResetAddressLimit = login.Limit{Max: 5, Window: 15 * time.Minute}

// Handler serves the invitation, recovery and account pages. Its store, templates, mail queue,
// limiter, keys, audit recorder, log and clock are its service's.
type Handler struct {
	svc          *Service
	login        *login.Handler
	addressLimit login.Limit
}

// New checks d and returns the handler.
func New(d Deps) (*Handler, error) {
	switch {
	case d.Service == nil:
		return nil, errors.New("account: no service")
	case d.Login == nil:
		return nil, errors.New("account: no sign-in handler")
	}
	h := &Handler{svc: d.Service, login: d.Login, addressLimit: d.ResetAddressLimit.Or(DefaultResetAddressLimit)}
	if err := h.addressLimit.Check(); err != nil {
		return nil, fmt.Errorf("account: %w", err)
	}
	return h, nil
}

// Service returns the handler's service (its Expanders go to the mail worker).
func (h *Handler) Service() *Service { return h.svc }

// Mount registers the routes listed in the package documentation.
func (h *Handler) Mount(r *mux.Router) {
	h.mountRecovery(r)
	h.mountAccount(r)
}
