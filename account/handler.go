package account

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/gorilla/mux"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/mail"
	"github.com/proctorhq/proctor/templates"
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

// Handler serves the invitation, recovery and account pages.
type Handler struct {
	store   Store
	login   *login.Handler
	tpl     *templates.Set
	mail    *mail.Queue
	limiter login.Limiter
	log     *slog.Logger
	now     func() time.Time
	// linkKey hashes link tokens into store ids; stampKey makes password stamps (the
	// service's).
	linkKey, stampKey []byte
	svc               *Service
	addressLimit      login.Limit
	audit             *audit.Recorder
}

// New checks d and returns the handler.
func New(d Deps) (*Handler, error) {
	switch {
	case d.Service == nil:
		return nil, errors.New("account: no service")
	case d.Login == nil:
		return nil, errors.New("account: no sign-in handler")
	}
	svc := d.Service
	h := &Handler{
		store: svc.store, login: d.Login, tpl: svc.tpl, mail: svc.mail, svc: svc,
		limiter: svc.limiter, log: svc.log, now: svc.now, audit: svc.audit,
		linkKey: svc.linkKey, stampKey: svc.stampKey,
		addressLimit: d.ResetAddressLimit.Or(DefaultResetAddressLimit),
	}
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
