package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/proctorhq/proctor/audit"
)

// ClientKind is the audience a client belongs to (spec, "Two kinds of clients").
type ClientKind string

const (
	// ClientMember acts for one signed-in member at one school (account:* and identity scopes).
	ClientMember ClientKind = "member"
	// ClientOperator acts for a school operator through the REST API (operator scopes).
	ClientOperator ClientKind = "operator"
)

// Token endpoint authentication methods (spec, Authentication rule 2).
const (
	AuthMethodNone       = "none"
	AuthMethodSecretPost = "client_secret_post"
)

// Client is an OAuth client registered at the context's school.
type Client struct {
	ID   string // client_id
	Kind ClientKind
	Name string
	// SecretHash is the keyed hash of a confidential client's secret; empty for public clients.
	// The secret itself is shown once and never stored.
	SecretHash              string
	TokenEndpointAuthMethod string // AuthMethodNone or AuthMethodSecretPost
	ApplicationType         string // "web" or "native"
	RedirectURIs            []string
	Scopes                  []string // the scopes the client may be granted
	CreatedAt               time.Time
	UpdatedAt               time.Time
}

// Clients stores OAuth clients. All methods are school-scoped.
type Clients interface {
	// CreateClient stores c; ErrAlreadyExists if its ID is taken (at any school: client ids are
	// global so that a client id names one client).
	CreateClient(ctx context.Context, c Client) (Client, error)
	GetClient(ctx context.Context, id string) (Client, error)
	// ListClients lists the school's clients of the given kind ("" for all), oldest first.
	ListClients(ctx context.Context, kind ClientKind, page Page) (clients []Client, next string, err error)
	// UpdateClient applies fn under a row lock. The ID cannot change.
	UpdateClient(ctx context.Context, id string, fn func(Client) (Client, error)) (Client, error)
	// DeleteClient deletes the client and, in the same transaction, revokes every token pair and
	// deactivates every authorization code it holds.
	DeleteClient(ctx context.Context, id string, at time.Time) error
}

// AuthorizationCode is a stored authorization code. The code itself is never stored: Signature
// is its keyed hash. Data is the serialized authorization request, owned by package authz.
type AuthorizationCode struct {
	Signature   string
	RequestID   string
	ClientID    string
	MemberID    int64
	Active      bool
	Data        []byte
	RequestedAt time.Time
	ExpiresAt   time.Time
}

// SessionKind names the per-code side records fosite keeps: PKCE challenges and OpenID Connect
// requests, both keyed by the code's signature.
type SessionKind string

const (
	SessionPKCE SessionKind = "pkce"
	SessionOIDC SessionKind = "oidc"
)

// GrantSession is one PKCE or OpenID Connect record.
type GrantSession struct {
	Signature string
	RequestID string
	Data      []byte
	ExpiresAt time.Time
}

// TokenPair is one access token and its refresh token: one row, one revocation stamp (spec,
// "Token pair"). RequestID names the grant: every pair issued from one authorization (the code
// exchange and every refresh after it) shares it.
type TokenPair struct {
	ID               int64
	RequestID        string
	ClientID         string
	MemberID         int64 // 0: no resource owner
	AccessSignature  string
	RefreshSignature string // "" until the refresh token is stored
	// Resource is the exact `resource` value sent at authorization (RFC 8707); the token is bound
	// to its origin.
	Resource         string
	Scopes           []string
	Data             []byte // the serialized request, owned by package authz
	RequestedAt      time.Time
	AccessExpiresAt  time.Time
	RefreshExpiresAt *time.Time
	RevokedAt        *time.Time
	FirstUsedAt      *time.Time
	// ReplacesPairID is the pair this one was refreshed from (0 for a code exchange).
	ReplacesPairID int64
	// SchoolID is the school the grant was made at, as the authorization server recorded it
	// when it issued the pair (0: none). A resource server accepts the access token only at that
	// school (spec, Authentication 8).
	SchoolID int64
	// AMR is how the member had signed in when the grant was made (RFC 8176 values, each a
	// token without whitespace), as the authorization server recorded it; empty if unknown.
	AMR []string
}

// TokenKind says which half of a pair a signature belongs to.
type TokenKind int

const (
	AccessToken TokenKind = iota
	RefreshToken
)

// CodeGrant is an authorization code with its PKCE and OpenID Connect records (nil where the
// authorization made none), read together: everything a code exchange reads, in one query.
type CodeGrant struct {
	Code AuthorizationCode
	PKCE *GrantSession
	OIDC *GrantSession
	// Event, when set, is the security event of the decision that issued the code (the
	// member's consent), stored with it by CreateCodeGrant: neither is stored without the
	// other. GetCodeGrant leaves it nil.
	Event *audit.Event
}

// Grants stores authorization codes, their PKCE and OpenID Connect records, and token pairs.
// All methods are school-scoped unless they say otherwise.
//
// The two writes of the token endpoint are one call each, so that a backend can make each one
// statement: ExchangeCode spends a code and stores the pair it buys, RefreshPair stores a pair
// in place of a live one.
type Grants interface {
	// CreateCodeGrant stores a code, its records (nil where the authorization made none) and
	// its security event (if any) together, atomically. The records' signatures are the
	// code's.
	CreateCodeGrant(ctx context.Context, g CodeGrant) error
	// GetCodeGrant returns the code whatever its Active flag (fosite must see a used code to
	// revoke what it issued), with its PKCE and OpenID Connect records.
	GetCodeGrant(ctx context.Context, signature string) (CodeGrant, error)
	// DeleteGrantSession deletes a PKCE or OpenID Connect record; ErrNotFound if there was none.
	DeleteGrantSession(ctx context.Context, kind SessionKind, signature string) error
	// ExchangeCode spends an active code, deletes its PKCE and OpenID Connect records and stores
	// p (both halves at once), atomically, and returns p with its ID. It is the arbiter of a
	// code's single use: of two concurrent calls for one code exactly one succeeds, and the
	// other gets ErrNotFound and stores nothing; so does a used or unknown code.
	ExchangeCode(ctx context.Context, signature string, p TokenPair) (TokenPair, error)

	// CreateTokenPair stores a new pair and returns it with its ID.
	CreateTokenPair(ctx context.Context, p TokenPair) (TokenPair, error)
	// GetTokenPair finds a pair by the signature of either of its tokens, revoked or not.
	GetTokenPair(ctx context.Context, kind TokenKind, signature string) (TokenPair, error)
	// RefreshPair stores p as the child of the pair p.ReplacesPairID, which must be a live pair
	// of the same grant (p.RequestID) at the context's school, and returns p with its ID. It
	// locks the replaced pair, which RevokeGrant locks too, and checks it under that lock, so a
	// refresh and a revocation of one grant are ordered by the database: a pair revoked first
	// (the replaced one or its whole grant) is ErrNotFound, and nothing is stored; a pair stored
	// first is revoked with the rest.
	RefreshPair(ctx context.Context, p TokenPair) (TokenPair, error)
	// RevokeGrant stamps every live pair of the grant revoked at `at` and deactivates its
	// authorization codes, after locking the grant; it returns how many pairs it revoked.
	RevokeGrant(ctx context.Context, requestID string, at time.Time) (int, error)
	// RetireReplaced is the step of refresh rotation that revokes (docs/decisions.md, "Refresh
	// rotation"): a resource server calls it at the first presentation of a pair's access token.
	// It records that first use and, for the first call for a pair only (however many race),
	// revokes in the same transaction the pair it replaced (spec: "New access token first
	// presented to an API -> old pair revoked"), every other pair minted from that one (a forked
	// refresh) and every pair minted from those. It returns whether this call was the first. A
	// pair already revoked (another line was used first, or the grant was revoked) is
	// ErrNotFound, and nothing changes.
	RetireReplaced(ctx context.Context, pairID int64, at time.Time) (first bool, err error)
}

// SigningKey is one school's ES256 key. The private key is stored only encrypted (package keys).
type SigningKey struct {
	KID                 string
	Algorithm           string // "ES256"
	PublicJWK           []byte // JSON
	PrivateKeyEncrypted []byte
	CreatedAt           time.Time
	RetiredAt           *time.Time
}

// SigningKeys stores the schools' signing keys. All methods are school-scoped.
type SigningKeys interface {
	CreateSigningKey(ctx context.Context, k SigningKey) error
	// ListSigningKeys returns the school's keys, newest first, retired ones included.
	ListSigningKeys(ctx context.Context) ([]SigningKey, error)
	// RetireSigningKey stamps a key retired; ErrNotFound if it is not the school's.
	RetireSigningKey(ctx context.Context, kid string, at time.Time) error
}

// LoginSession is a member's signed-in session at one school's host. The session cookie holds
// a random token; only its keyed hash (ID) is stored.
type LoginSession struct {
	ID         string
	MemberID   int64
	CreatedAt  time.Time
	LastSeenAt time.Time
	ExpiresAt  time.Time // the absolute timeout
	// UserAgent and ClientAddr are the browser's User-Agent and address when the session
	// started, for the member's list of their sessions (account.Sessions); "" if unknown.
	UserAgent  string
	ClientAddr string
	// AMR is how the member signed in (RFC 8176 values: "pwd", then "otp" and "mfa" after a
	// second factor), for ID tokens; FactorAt is when a second factor was last entered in the
	// session (zero: never), for step-up.
	AMR      []string
	FactorAt time.Time
	// Roles are the member's roles at the session's school, most powerful first, as
	// GetLoginSession read them with the session; CreateLoginSession ignores them.
	Roles []Role
}

// LoginSessions stores login sessions. All methods are school-scoped.
type LoginSessions interface {
	CreateLoginSession(ctx context.Context, s LoginSession) error
	// GetLoginSession returns a session with its member and the member's roles at the school
	// (LoginSession.Roles), in one statement: every signed-in page needs them.
	GetLoginSession(ctx context.Context, id string) (LoginSession, Member, error)
	// TouchLoginSession moves LastSeenAt forward (the idle timeout counts from it).
	TouchLoginSession(ctx context.Context, id string, at time.Time) error
	DeleteLoginSession(ctx context.Context, id string) error
}

// Transactions let a caller group several store calls into one database transaction (fosite's
// storage.Transactional). The transaction travels in the returned context: every store method
// called with that context runs inside it.
type Transactions interface {
	BeginTx(ctx context.Context) (context.Context, error)
	Commit(ctx context.Context) error
	Rollback(ctx context.Context) error
}

// InTx runs fn in one transaction of tx: fn's context carries it, so every store call fn makes
// with that context joins it. The transaction commits when fn returns nil and is rolled back
// when fn fails, when the commit fails, and when fn panics (the panic then goes on: an
// abandoned transaction would hold its connection, and on SQLite the write lock, until the
// connection dies).
//
// fn's error is returned as fn gave it, so callers still match it with errors.Is and keep the
// words fn wrapped it in. A failed rollback after fn's error is written into the message but
// not wrapped: what the caller decides on (a refused change, a dead link) is fn's error, and a
// rollback's failure (the connection is likely gone, and the database drops the transaction
// with it) must not turn a refusal into storage.ErrUnavailable or hide it from errors.Is.
// Failures to begin or commit are wrapped so that the message names the step.
func InTx(ctx context.Context, tx Transactions, fn func(ctx context.Context) error) error {
	txCtx, err := tx.BeginTx(ctx)
	if err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	ended := false // committed, or rolled back after fn's error
	defer func() {
		if !ended {
			_ = tx.Rollback(txCtx) // fn panicked or the commit failed: that error is the one to tell
		}
	}()
	if err := fn(txCtx); err != nil {
		ended = true
		if rbErr := tx.Rollback(txCtx); rbErr != nil {
			return fmt.Errorf("%w (and the rollback failed: %v)", err, rbErr)
		}
		return err
	}
	if err := tx.Commit(txCtx); err != nil {
		return fmt.Errorf("commit transaction: %w", err)
	}
	ended = true
	return nil
}

// Purger deletes expired data in bounded batches so tables do not grow without end.
type Purger interface {
	// PurgeExpired deletes, across every school, at most `batch` rows of each kind that expired
	// before `before`: authorization codes, PKCE and OpenID Connect records, login sessions, and
	// token pairs whose refresh token (or, without one, access token) expired. Revoked pairs are
	// kept until they expire so that a replayed refresh token is still recognised. Where the
	// store also keeps account.Store's tables, it deletes one-time links that expired before
	// `before` (used or not) and members' security events older than 180 days before `before`;
	// where it keeps the mail outbox (mail.Outbox), its entries sent or failed more than 30
	// days before `before`. It returns how many rows it deleted.
	PurgeExpired(ctx context.Context, before time.Time, batch int) (int, error)
}
