package account

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/gorilla/mux"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/consent"
	"github.com/proctorhq/proctor/mail"
	"github.com/proctorhq/proctor/templates"
)

// Deps are what the handler is built from.
type Deps struct {
	Store Store
	// Consent provides sessions, CSRF and the page writer.
	Consent   *consent.Handler
	Templates *templates.Set
	// Mail queues messages in the outbox.
	Mail   *mail.Queue
	Secret config.Secret
	// Limiter counts password-reset requests (nil: a consent.MemoryLimiter).
	Limiter consent.Limiter
	Logger  *slog.Logger     // nil: discard
	Now     func() time.Time // nil: time.Now
}

// Handler serves the invitation, recovery and account pages.
type Handler struct {
	store   Store
	consent *consent.Handler
	tpl     *templates.Set
	mail    *mail.Queue
	limiter consent.Limiter
	log     *slog.Logger
	now     func() time.Time
	// linkKey hashes link tokens into store ids; stampKey makes password stamps.
	linkKey, stampKey []byte
}

// New checks d and returns the handler.
func New(d Deps) (*Handler, error) {
	switch {
	case d.Store == nil:
		return nil, errors.New("account: no store")
	case d.Consent == nil:
		return nil, errors.New("account: no consent handler")
	case d.Templates == nil:
		return nil, errors.New("account: no templates")
	case d.Mail == nil:
		return nil, errors.New("account: no mail queue")
	case len(d.Secret) < config.MinSecretBytes:
		return nil, fmt.Errorf("account: the secret must hold at least %d bytes", config.MinSecretBytes)
	}
	h := &Handler{
		store: d.Store, consent: d.Consent, tpl: d.Templates, mail: d.Mail, limiter: d.Limiter, log: d.Logger, now: d.Now,
		linkKey:  d.Secret.Derive("account link id"),
		stampKey: d.Secret.Derive("account password stamp"),
	}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	if h.now == nil {
		h.now = time.Now
	}
	if h.limiter == nil {
		h.limiter = consent.NewMemoryLimiter(0, h.now)
	}
	return h, nil
}

// Mount registers the routes listed in the package documentation.
func (h *Handler) Mount(r *mux.Router) {
	h.mountRecovery(r)
	h.mountAccount(r)
}
