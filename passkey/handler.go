package passkey

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/gorilla/mux"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/factor"
	"github.com/proctorhq/proctor/i18n"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/templates"
)

// Paths served by Mount.
const (
	AccountPath        = "/account/passkeys"
	RegisterBeginPath  = "/account/passkeys/register/begin"
	RegisterFinishPath = "/account/passkeys/register/finish"
	RenamePath         = "/account/passkeys/rename"
	RemovePath         = "/account/passkeys/remove"
	SignInPath         = login.PasskeyLoginPath // "/login/passkey"
	SignInBeginPath    = "/login/passkey/begin"
	SignInFinishPath   = "/login/passkey/finish"
)

// Policy is the Content-Security-Policy of the passkey pages: login.PagePolicy with script
// from this origin (the one static script, no inline script) and fetch to this origin (its
// JSON endpoints). Every other page keeps loading no script at all.
const Policy = "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// Cookie names of a ceremony in progress. The cookie holds a random value; the store holds its
// keyed hash with the ceremony's state, so that any replica can finish what another began, and
// the value answers once. Over https the "__Host-" prefix keeps a sibling host from planting one
// (login.SecureCookies decides, as for the session cookie).
const (
	ChallengeCookie       = "proctor_passkey"
	SecureChallengeCookie = login.HostPrefix + ChallengeCookie
)

// Bounds.
const (
	// ceremonyLifetime is how long a begun ceremony may be finished. The browser is told
	// ceremonyTimeout (WebAuthn's timeout), a little less, so that it gives up first.
	ceremonyLifetime = 5 * time.Minute
	ceremonyTimeout  = 4 * time.Minute
	// maxPasskeys bounds a member's passkeys at a school: each is a row, an entry of every
	// registration's exclude list, and a line of the page.
	maxPasskeys = 20
)

// Store is what the passkey pages need of the store: the passkeys and their challenges, and the
// member a passkey belongs to.
type Store interface {
	factor.Passkeys
	GetMember(ctx context.Context, id int64) (storage.Member, error)
}

// Deps are what the handler is built from.
type Deps struct {
	Store Store
	// Consent provides sessions, CSRF tokens and the page writer.
	Login     *login.Handler
	Templates *templates.Set
	// Secret keys the challenge cookie's hash and the members' user handles (through keys
	// derived for each).
	Secret config.Secret
	// Limiter counts failed assertions (nil: a login.MemoryLimiter); AddressLimit is the
	// budget per client address (zero: login.DefaultAddressLimit), charged under the same
	// key as the sign-in form's, so that an address spends one budget on failed passwords and
	// failed passkeys alike.
	Limiter      login.Limiter
	AddressLimit login.Limit
	// Audit records factor_enrolled, factor_removed, factor_used and passkey sign-ins (nil:
	// nothing recorded).
	Audit  *audit.Recorder
	Logger *slog.Logger     // nil: discard
	Now    func() time.Time // nil: time.Now
}

// Handler serves the passkey pages and ceremonies.
type Handler struct {
	store        Store
	login        *login.Handler
	tpl          *templates.Set
	limiter      login.Limiter
	addressLimit login.Limit
	audit        *audit.Recorder
	log          *slog.Logger
	now          func() time.Time
	// challengeKey hashes challenge cookies into store ids; handleKey makes user handles.
	challengeKey, handleKey []byte
}

// New checks d and returns the handler.
func New(d Deps) (*Handler, error) {
	switch {
	case d.Store == nil:
		return nil, errors.New("passkey: no store")
	case d.Login == nil:
		return nil, errors.New("passkey: no sign-in handler")
	case d.Templates == nil:
		return nil, errors.New("passkey: no templates")
	case len(d.Secret) < config.MinSecretBytes:
		return nil, fmt.Errorf("passkey: the secret must hold at least %d bytes", config.MinSecretBytes)
	}
	h := &Handler{
		store: d.Store, login: d.Login, tpl: d.Templates, limiter: d.Limiter, addressLimit: d.AddressLimit,
		audit: d.Audit, log: d.Logger, now: d.Now,
		challengeKey: d.Secret.Derive("passkey challenge v1"),
		handleKey:    d.Secret.Derive("passkey user handle v1"),
	}
	h.log, h.now = login.LoggerOrDiscard(h.log), login.ClockOrNow(h.now)
	if h.limiter == nil {
		h.limiter = login.NewMemoryLimiter(0, h.now)
	}
	h.addressLimit = h.addressLimit.Or(login.DefaultAddressLimit)
	if err := h.addressLimit.Check(); err != nil {
		return nil, fmt.Errorf("passkey: %w", err)
	}
	return h, nil
}

// Mount registers the routes listed in the package documentation.
func (h *Handler) Mount(r *mux.Router) {
	r.Handle(AccountPath, h.memberPage(h.listPage)).Methods(http.MethodGet)
	r.Handle(RegisterBeginPath, h.memberJSON(h.registerBegin)).Methods(http.MethodPost)
	r.Handle(RegisterFinishPath, h.memberJSON(h.registerFinish)).Methods(http.MethodPost)
	r.Handle(RenamePath, h.memberPage(h.rename)).Methods(http.MethodPost)
	r.Handle(RemovePath, h.memberPage(h.remove)).Methods(http.MethodPost)
	r.Handle(SignInPath, h.page(h.login.SignInPage(h.signInPage))).Methods(http.MethodGet)
	r.Handle(SignInBeginPath, h.formJSON(h.signInBegin)).Methods(http.MethodPost)
	r.Handle(SignInFinishPath, h.formJSON(h.signInFinish)).Methods(http.MethodPost)
	r.Handle(FactorPagePath, h.page(h.factorPage)).Methods(http.MethodGet)
	r.Handle(FactorBeginPath, h.formJSONAny(h.factorBegin)).Methods(http.MethodPost)
	r.Handle(FactorFinishPath, h.formJSONAny(h.factorFinish)).Methods(http.MethodPost)
}

// relyingParty is the school's WebAuthn relying party: its id the school's host, its one origin
// the school's origin. ok is false at a school served at an IP address (no passkeys there).
func relyingParty(t *school.School) (*webauthn.WebAuthn, bool) {
	id, ok := t.PasskeyRPID()
	if !ok {
		return nil, false
	}
	wa, err := webauthn.New(&webauthn.Config{
		RPID:          id,
		RPDisplayName: t.Name,
		RPOrigins:     []string{t.Origin},
		// No attestation: Proctor does not restrict authenticator models, and "none" asks the
		// browser for nothing that identifies the device.
		AttestationPreference: protocol.PreferNoAttestation,
		AuthenticatorSelection: protocol.AuthenticatorSelection{
			ResidentKey:        protocol.ResidentKeyRequirementRequired,
			RequireResidentKey: protocol.ResidentKeyRequired(),
			UserVerification:   protocol.VerificationRequired,
		},
		// The store enforces the ceremony's lifetime with the handler's clock.
		Timeouts: webauthn.TimeoutsConfig{
			Login:        webauthn.TimeoutConfig{Timeout: ceremonyTimeout, TimeoutUVD: ceremonyTimeout},
			Registration: webauthn.TimeoutConfig{Timeout: ceremonyTimeout, TimeoutUVD: ceremonyTimeout},
		},
	})
	if err != nil {
		// Only a host the library refuses gets here; such a school has no passkeys.
		return nil, false
	}
	return wa, true
}

// userHandle is the member's WebAuthn user handle at the school: an HMAC of the school and the
// member, so that it names nobody to anyone without the secret (WebAuthn section 14.6.1: no
// personal data in a user handle), is the same for every passkey of the member at the school,
// and needs no column.
func (h *Handler) userHandle(schoolID, memberID int64) []byte {
	var msg [16]byte
	binary.BigEndian.PutUint64(msg[:8], uint64(schoolID))
	binary.BigEndian.PutUint64(msg[8:], uint64(memberID))
	return login.MAC(h.handleKey, msg[:])
}

// challengeID is the store id of a challenge cookie's value.
func (h *Handler) challengeID(token string) string { return login.TokenID(h.challengeKey, token) }

// user is a member as the WebAuthn library sees them.
type user struct {
	handle      []byte
	name        string
	displayName string
	credentials []webauthn.Credential
}

func (u *user) WebAuthnID() []byte                         { return u.handle }
func (u *user) WebAuthnName() string                       { return u.name }
func (u *user) WebAuthnDisplayName() string                { return u.displayName }
func (u *user) WebAuthnCredentials() []webauthn.Credential { return u.credentials }

// newUser is m at the school, with the given passkeys.
func (h *Handler) newUser(schoolID int64, m storage.Member, keys []factor.Passkey) *user {
	u := &user{handle: h.userHandle(schoolID, m.ID), name: m.Email, displayName: m.Name}
	if u.displayName == "" {
		u.displayName = m.Email
	}
	for _, p := range keys {
		u.credentials = append(u.credentials, credential(p))
	}
	return u
}

// credential is p as the WebAuthn library keeps a credential.
func credential(p factor.Passkey) webauthn.Credential {
	c := webauthn.Credential{
		ID:                p.CredentialID,
		PublicKey:         p.PublicKey,
		AttestationFormat: p.AttestationFormat,
		Flags: webauthn.CredentialFlags{
			UserPresent: true, UserVerified: true,
			BackupEligible: p.BackupEligible, BackupState: p.BackupState,
		},
		Authenticator: webauthn.Authenticator{AAGUID: p.AAGUID, SignCount: p.SignCount},
	}
	for _, t := range p.Transports {
		c.Transport = append(c.Transport, protocol.AuthenticatorTransport(t))
	}
	return c
}

// startCeremony stores the ceremony's state under a fresh cookie value and sets the cookie.
func (h *Handler) startCeremony(w http.ResponseWriter, r *http.Request, purpose factor.ChallengePurpose, memberID int64, sd *webauthn.SessionData) error {
	raw, err := json.Marshal(sd)
	if err != nil {
		return fmt.Errorf("passkey: encode ceremony: %w", err)
	}
	token, now := login.NewToken(), h.now()
	c := factor.Challenge{ID: h.challengeID(token), Purpose: purpose, MemberID: memberID, Session: raw,
		CreatedAt: now, ExpiresAt: now.Add(ceremonyLifetime)}
	if err := h.store.CreatePasskeyChallenge(r.Context(), c); err != nil {
		return fmt.Errorf("passkey: store challenge: %w", err)
	}
	login.SetCookie(w, login.SecureCookies(r), ChallengeCookie, token, ceremonyLifetime, http.SameSiteStrictMode)
	return nil
}

// errNoCeremony means the request has no live ceremony of the purpose: no cookie, an expired,
// used or unknown one, or one of another school.
var errNoCeremony = errors.New("passkey: no ceremony in progress")

// finishCeremony consumes the request's ceremony of purpose (it answers once, whatever happens
// next) and clears the cookie.
func (h *Handler) finishCeremony(w http.ResponseWriter, r *http.Request, purpose factor.ChallengePurpose) (factor.Challenge, webauthn.SessionData, error) {
	secure := login.SecureCookies(r)
	name := challengeCookieName(secure)
	ck, err := r.Cookie(name)
	if err != nil || !login.WellFormedToken(ck.Value) {
		return factor.Challenge{}, webauthn.SessionData{}, errNoCeremony
	}
	login.ClearCookie(w, secure, ChallengeCookie, http.SameSiteStrictMode)
	c, err := h.store.ConsumePasskeyChallenge(r.Context(), h.challengeID(ck.Value), purpose, h.now())
	if errors.Is(err, storage.ErrNotFound) {
		return factor.Challenge{}, webauthn.SessionData{}, errNoCeremony
	}
	if err != nil {
		return factor.Challenge{}, webauthn.SessionData{}, fmt.Errorf("passkey: consume challenge: %w", err)
	}
	var sd webauthn.SessionData
	if err := json.Unmarshal(c.Session, &sd); err != nil {
		return factor.Challenge{}, webauthn.SessionData{}, fmt.Errorf("passkey: decode ceremony: %w", err)
	}
	return c, sd, nil
}

func challengeCookieName(secure bool) string { return login.CookieName(secure, ChallengeCookie) }

// jsonError is a refusal of a JSON endpoint: its status, code and plain sentence for the member,
// written in the request's language. Err, if any, is only logged.
type jsonError struct {
	status int
	code   string
	// key is the sentence's catalogue message, data its values.
	key  string
	data []any
	err  error
}

// message is the refusal's sentence in loc's language.
func (e *jsonError) message(loc *i18n.Localizer) string { return loc.Text(e.key, e.data...) }

func (e *jsonError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("%d %s", e.status, e.code)
	}
	return fmt.Sprintf("%d %s: %v", e.status, e.code, e.err)
}

func (e *jsonError) Unwrap() error { return e.err }

// Refusals of the JSON endpoints. Their sentences say what the member can do, never why a
// check failed.
var (
	errExpired      = &jsonError{status: http.StatusForbidden, code: "expired", key: "passkey.error.expired"}
	errSignedOut    = &jsonError{status: http.StatusUnauthorized, code: "signed_out", key: "passkey.error.signed_out"}
	errUnavailable  = &jsonError{status: http.StatusConflict, code: "unavailable", key: "passkey.error.unavailable"}
	errRefused      = &jsonError{status: http.StatusBadRequest, code: "refused", key: "passkey.error.refused"}
	errLimited      = &jsonError{status: http.StatusTooManyRequests, code: "rate_limited", key: "passkey.error.rate_limited"}
	errTooMany      = &jsonError{status: http.StatusConflict, code: "too_many", key: "passkey.error.too_many", data: []any{"Count", maxPasskeys}}
	errRegistered   = &jsonError{status: http.StatusConflict, code: "registered", key: "passkey.error.registered"}
	errNotCompleted = &jsonError{status: http.StatusBadRequest, code: "not_completed", key: "passkey.error.not_completed"}
	// errServer answers what went wrong on the server's side; errStoreDown a store outage.
	errServer    = &jsonError{status: http.StatusInternalServerError, code: "server_error", key: "passkey.error.server"}
	errStoreDown = &jsonError{status: http.StatusServiceUnavailable, code: "temporarily_unavailable", key: "passkey.error.temporarily_unavailable"}
)

// refused is errRefused with the reason, for the log.
func refused(base *jsonError, err error) *jsonError {
	e := *base
	e.err = err
	return &e
}

// writeJSONError answers err: a *jsonError as itself, 413 for a body over the limit, 503 for a
// store outage, 500 for anything else. The log has the detail, the answer none.
func (h *Handler) writeJSONError(w http.ResponseWriter, r *http.Request, err error) {
	je := errServer
	switch {
	case errors.As(err, &je):
	case edge.TooLarge(err):
		edge.WriteTooLarge(w)
		return
	case errors.Is(err, storage.ErrUnavailable):
		je = errStoreDown
	}
	level := slog.LevelInfo
	if je.status >= 500 {
		level = slog.LevelError
	}
	h.log.Log(r.Context(), level, "passkey request refused", "request_id", edge.FromContext(r.Context()).ID, "path", r.URL.Path,
		"status", je.status, "code", je.code, "err", err)
	// A spent budget has set the window it is whole again in (login.SetRetryAfter); anything
	// else that asks for a retry is asked to wait a minute.
	if (je.status == http.StatusTooManyRequests || je.status == http.StatusServiceUnavailable) && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", "60")
	}
	edge.WriteError(w, je.status, je.code, je.message(i18n.FromContext(r.Context())))
}

// writeJSON answers v, never cached (the options carry a challenge).
func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Cache-Control", "no-store")
	edge.WriteJSON(w, http.StatusOK, v)
}

// redirect is a finish endpoint's answer: where the script sends the browser.
type redirect struct {
	Redirect string `json:"redirect"`
}

// page adapts a page handler that returns an error (consent's error page for it).
func (h *Handler) page(fn login.RequestPage) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := fn(w, r); err != nil {
			h.login.Fail(w, r, err)
		}
	})
}

// formJSON adapts a JSON endpoint of a page shown before sign-in: the form is read and its
// double-submit token (login.FormToken) checked before fn runs.
func (h *Handler) formJSON(fn login.SchoolPage) http.Handler {
	return h.formJSONAny(func(w http.ResponseWriter, r *http.Request, t *school.School) error {
		if !h.login.CheckFormToken(r) {
			return errExpired
		}
		return fn(w, r, t)
	})
}

// memberJSON adapts a JSON endpoint of a signed-in member: the session must be valid and the
// form must carry its CSRF token.
func (h *Handler) memberJSON(fn login.VisitPage) http.Handler {
	return h.formJSONAny(func(w http.ResponseWriter, r *http.Request, t *school.School) error {
		s, err := h.login.Load(r)
		if errors.Is(err, login.ErrNoSession) {
			return errSignedOut
		}
		if err != nil {
			return err
		}
		if !h.login.CheckCSRF(r, s) {
			return errExpired
		}
		return fn(w, r, login.Visit{School: t, Session: s})
	})
}

// note records the passkey event of kind that ended in res, the member's own (0 when unknown),
// of the request at the handler's clock (nil-safe).
func (h *Handler) note(r *http.Request, memberID int64, kind audit.Kind, res audit.Result) {
	e := audit.MemberEvent(r, memberID, kind, string(factor.KindPasskey))
	e.Result, e.At = res, h.now()
	h.audit.Note(r.Context(), e)
}
