package account

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/gorilla/mux"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/mail"
	"github.com/proctorhq/proctor/templates"
)

// Deps are what the handler is built from.
type Deps struct {
	Store Store
	// Consent provides sessions, CSRF and the page writer.
	Login     *login.Handler
	Templates *templates.Set
	// Mail queues messages in the outbox.
	Mail   *mail.Queue
	Secret config.Secret
	// Limiter counts password-reset requests (nil: a login.MemoryLimiter).
	Limiter login.Limiter
	Logger  *slog.Logger     // nil: discard
	Now     func() time.Time // nil: time.Now
	// Service invites and resets (nil: one built from the fields above, without a school
	// lookup, so its Expanders cannot serve; the server builds its own and passes it).
	Service *Service
	// ResetAddressLimit bounds forgotten-password forms per client address (zero:
	// DefaultResetAddressLimit).
	ResetAddressLimit login.Limit
	// Audit records security events (nil: a recorder over Store that counts nothing). Used
	// only to build the Service when Service is nil; otherwise the Service's is used.
	Audit *audit.Recorder
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
	// service's: deriveKeys is their one source).
	linkKey, stampKey []byte
	svc               *Service
	addressLimit      login.Limit
	audit             *audit.Recorder
}

// New checks d and returns the handler.
func New(d Deps) (*Handler, error) {
	switch {
	case d.Store == nil:
		return nil, errors.New("account: no store")
	case d.Login == nil:
		return nil, errors.New("account: no sign-in handler")
	case d.Templates == nil:
		return nil, errors.New("account: no templates")
	case d.Mail == nil:
		return nil, errors.New("account: no mail queue")
	}
	svc := d.Service
	if svc == nil {
		var err error
		svc, err = NewService(ServiceDeps{
			Store: d.Store, Mail: d.Mail, Templates: d.Templates, Secret: d.Secret,
			Limiter: d.Limiter, Logger: d.Logger, Now: d.Now, Audit: d.Audit,
		})
		if err != nil {
			return nil, err
		}
	}
	h := &Handler{
		store: d.Store, login: d.Login, tpl: d.Templates, mail: d.Mail, svc: svc,
		limiter: d.Limiter, log: svc.log, now: svc.now, audit: svc.audit,
		linkKey: svc.linkKey, stampKey: svc.stampKey,
		addressLimit: d.ResetAddressLimit,
	}
	if h.limiter == nil {
		h.limiter = svc.limiter
	}
	h.addressLimit = h.addressLimit.Or(DefaultResetAddressLimit)
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
