package login

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/factor"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
)

// Session cookie names. Over https the "__Host-" prefix makes browsers refuse the cookie unless
// it is Secure, host-only and for Path "/", so a sibling host (another school on the same parent
// domain) cannot plant or shadow it. Which name a request uses is secureCookies's choice.
const (
	SessionCookie       = "proctor_session"
	SecureSessionCookie = HostPrefix + SessionCookie
)

// touchEvery is how stale LastSeenAt may be before a request writes it again: the idle timeout
// is counted in minutes, and a write per request would cost more than it tells.
const touchEvery = time.Minute

// ErrNoSession means the request carries no valid session of its school.
var ErrNoSession = errors.New("login: no session")

// Session is a member's valid sign-in at the request's school.
type Session struct {
	// ID is the session's store id (the keyed hash of the cookie's token, never the token).
	ID string
	// Member is the signed-in member, without PasswordHash (nothing past sign-in needs it).
	Member storage.Member
	// CreatedAt is when the member signed in (OpenID Connect's auth_time).
	CreatedAt  time.Time
	LastSeenAt time.Time
	ExpiresAt  time.Time
	// AMR is how the member signed in (RFC 8176 values, package factor), for ID tokens; empty
	// for a session older than the record of it. FactorAt is when a second factor was last
	// entered in the session (zero: never), for step-up.
	AMR      []string
	FactorAt time.Time
	// Roles are the member's roles at the school, most powerful first, read with the session.
	Roles []storage.Role
}

// Operator reports whether the member is an owner or admin of the session's school
// (storage.Role IsOperator).
func (s Session) Operator() bool {
	return slices.ContainsFunc(s.Roles, storage.Role.IsOperator)
}

// Current returns the request's session if it has a valid one. A store failure reads as "not
// signed in" (and is logged); use Load to tell the two apart.
func (h *Handler) Current(r *http.Request) (Session, bool) {
	s, err := h.Load(r)
	if err != nil {
		if !errors.Is(err, ErrNoSession) {
			h.log.ErrorContext(r.Context(), "load session", "request_id", edge.FromContext(r.Context()).ID, "err", err)
		}
		return Session{}, false
	}
	return s, true
}

// Load returns the request's session, ErrNoSession if it has no valid one, or a store error
// (storage.ErrUnavailable and the like, wrapped). The session must belong to the request's
// school: the store is school-scoped, so a cookie from one school's host finds nothing at
// another's. Idle and absolute expiry are checked here, against the server's clock, whatever
// the cookie's own lifetime; an expired session is deleted. LastSeenAt is moved forward at
// most once a minute.
func (h *Handler) Load(r *http.Request) (Session, error) {
	ctx := r.Context()
	c, err := r.Cookie(sessionCookieName(secureCookies(r)))
	if err != nil || !WellFormedToken(c.Value) {
		return Session{}, ErrNoSession
	}
	id := h.sessionID(c.Value)
	ls, m, err := h.store.GetLoginSession(ctx, id)
	if errors.Is(err, storage.ErrNotFound) {
		return Session{}, ErrNoSession
	}
	if err != nil {
		return Session{}, fmt.Errorf("login: get session: %w", err)
	}
	now := h.now()
	if !now.Before(ls.ExpiresAt) || now.Sub(ls.CreatedAt) >= h.absolute || now.Sub(ls.LastSeenAt) >= h.idle {
		h.deleteSession(ctx, id)
		return Session{}, ErrNoSession
	}
	if now.Sub(ls.LastSeenAt) >= touchEvery {
		if err := h.store.TouchLoginSession(ctx, id, now); err != nil {
			// The session is still valid; the next request tries again.
			h.log.WarnContext(ctx, "touch session", "request_id", edge.FromContext(ctx).ID, "err", err)
		} else {
			ls.LastSeenAt = now
		}
	}
	m.PasswordHash = ""
	return Session{ID: id, Member: m, CreatedAt: ls.CreatedAt, LastSeenAt: ls.LastSeenAt, ExpiresAt: ls.ExpiresAt,
		AMR: ls.AMR, FactorAt: ls.FactorAt, Roles: ls.Roles}, nil
}

// RedirectToLogin sends the browser to the sign-in page, which returns it to this request's
// URI afterwards.
func (h *Handler) RedirectToLogin(w http.ResponseWriter, r *http.Request) {
	SeeOther(w, WithReturnTo(LoginPath, r.URL.RequestURI()))
}

// StartSession signs m in with a password alone: a fresh token (never one the browser brought, so
// a planted cookie cannot become a session), its hash stored, the token in the cookie. A session
// this browser already held at the school is ended. A member who may have a second factor is
// signed in with SignIn instead.
func (h *Handler) StartSession(ctx context.Context, w http.ResponseWriter, r *http.Request, m storage.Member) error {
	return h.startSession(ctx, w, r, m, []string{factor.AMRPassword}, time.Time{})
}

// StartSessionWith signs m in like StartSession, with the methods they signed in with (RFC 8176
// values) and when a second factor was entered (zero: none): a passwordless sign-in with a
// passkey (package passkey).
func (h *Handler) StartSessionWith(ctx context.Context, w http.ResponseWriter, r *http.Request, m storage.Member, amr []string, factorAt time.Time) error {
	return h.startSession(ctx, w, r, m, amr, factorAt)
}

// startSession is StartSession with the methods the member signed in with and when a second
// factor was entered (zero: none).
func (h *Handler) startSession(ctx context.Context, w http.ResponseWriter, r *http.Request, m storage.Member, amr []string, factorAt time.Time) error {
	secure := secureCookies(r)
	if c, err := r.Cookie(sessionCookieName(secure)); err == nil && WellFormedToken(c.Value) {
		h.deleteSession(ctx, h.sessionID(c.Value))
	}
	token := NewToken()
	now := h.now()
	ls := storage.LoginSession{
		ID:         h.sessionID(token),
		MemberID:   m.ID,
		CreatedAt:  now,
		LastSeenAt: now,
		ExpiresAt:  now.Add(h.absolute),
		UserAgent:  audit.ClipUserAgent(r.UserAgent()),
		AMR:        amr,
		FactorAt:   factorAt,
	}
	if addr := edge.FromContext(ctx).ClientAddr; addr.IsValid() {
		ls.ClientAddr = addr.String()
	}
	if err := h.store.CreateLoginSession(ctx, ls); err != nil {
		return fmt.Errorf("login: create session: %w", err)
	}
	// Lax: sent on the top-level GET a client's link to /oauth/authorize makes.
	SetCookie(w, secure, SessionCookie, token, h.absolute, http.SameSiteLaxMode)
	return nil
}

// clearSessionCookie tells the browser to drop the session cookie.
func clearSessionCookie(w http.ResponseWriter, secure bool) {
	ClearCookie(w, secure, SessionCookie, http.SameSiteLaxMode)
}

// deleteSession removes a session row, logging rather than failing: callers are already on
// their way to treating the session as gone.
func (h *Handler) deleteSession(ctx context.Context, id string) {
	if err := h.store.DeleteLoginSession(ctx, id); err != nil && !errors.Is(err, storage.ErrNotFound) {
		h.log.WarnContext(ctx, "delete session", "request_id", edge.FromContext(ctx).ID, "err", err)
	}
}

// secureCookies reports whether r's cookies are the Secure, "__Host-" ones. At a school whose
// base_url is https they always are, whatever scheme the request says it came by: such a school
// is served over https only (package server), and an un-prefixed cookie presented to it could
// have been planted by a sibling host or over plain http, so it is neither read nor set.
// Elsewhere (a loopback http school) they are when the request came over https.
func secureCookies(r *http.Request) bool {
	if t, err := school.FromContext(r.Context()); err == nil && t.HTTPS() {
		return true
	}
	return edge.FromContext(r.Context()).Secure
}

// HostPrefix is what a cookie's name starts with when secureCookies says so: browsers then
// refuse the cookie unless it is Secure, host-only and for Path "/".
const HostPrefix = "__Host-"

// CookieName is the name a cookie of these pages goes by: name with HostPrefix when secure
// (secureCookies), name alone otherwise. Every cookie of the sign-in, factor and passkey pages
// is named this way.
func CookieName(secure bool, name string) string {
	if secure {
		return HostPrefix + name
	}
	return name
}

func sessionCookieName(secure bool) string { return CookieName(secure, SessionCookie) }

// sessionID is the store id of a session token.
func (h *Handler) sessionID(token string) string { return TokenID(h.sessionKey, token) }

// MAC is HMAC-SHA256 of msg under key: every signature and store id of these pages and of
// packages account, passkey and mfa is one, each under its own key derived from the system
// secret.
func MAC(key, msg []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(msg)
	return m.Sum(nil)
}

// TokenID is the store id of a secret a browser or a member presents (a session, link or
// challenge token, a recovery code): MAC under key, in hex, so that a leaked table holds
// nothing a browser could present.
func TokenID(key []byte, token string) string {
	return hex.EncodeToString(MAC(key, []byte(token)))
}

const tokenBytes = 32 // 256 bits

// NewToken returns 256 random bits, base64url-encoded without padding: session and CSRF cookie
// values here, one-time link tokens in package account.
func NewToken() string {
	b := make([]byte, tokenBytes)
	// crypto/rand.Read never fails (it aborts the program if the system has no randomness).
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// WellFormedToken reports whether s could be a token of NewToken, so that junk is never hashed
// or looked up.
func WellFormedToken(s string) bool {
	if len(s) != base64.RawURLEncoding.EncodedLen(tokenBytes) {
		return false
	}
	// The decoder skips '\r' and '\n', so the length of what it decodes is checked too.
	b, err := base64.RawURLEncoding.DecodeString(s)
	return err == nil && len(b) == tokenBytes
}
