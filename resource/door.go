package resource

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"time"

	"github.com/proctorhq/proctor/storage"
)

// RoleReader reads a member's roles at the context's school (storage's GetRoles).
type RoleReader interface {
	GetRoles(ctx context.Context, memberID int64) ([]storage.Role, error)
}

// Door is how one protected surface (the Member API, /mcp, the operator REST API) lets a
// request in. Every surface asks the same questions in the same order, so the answers cannot
// drift apart between them; only how a refusal is written differs, and that stays with the
// surface (GraphQL errors, an MCP challenge, the operator API's Bearer challenges).
type Door struct {
	// Name names the surface in log lines ("member api", "mcp", "operator api").
	Name     string
	Verifier Verifier
	// Roles is read by policies that ask for the member's roles; nil if none does.
	Roles RoleReader
	Log   *slog.Logger
}

// Surface is what every protected surface is built with besides its own store: its Door, and
// the logger and clock it shares with it.
type Surface struct {
	Door Door
	Log  *slog.Logger
	Now  func() time.Time
}

// NewSurface builds the Surface of the surface called name (Door.Name). A nil log discards and
// a nil now is time.Now, as every surface's Deps promise.
func NewSurface(name string, v Verifier, roles RoleReader, log *slog.Logger, now func() time.Time) Surface {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if now == nil {
		now = time.Now
	}
	return Surface{Door: Door{Name: name, Verifier: v, Roles: roles, Log: log}, Log: log, Now: now}
}

// Policy is what one request must bring through a Door.
type Policy struct {
	// Anonymous lets a request without an Authorization header through as nobody (a zero
	// Access). A header that is there must still hold a valid token.
	Anonymous bool
	// Scopes: the grant must hold at least one of them; a refusal asks for the first. None means
	// no scope is required. The empty scope is never held.
	Scopes []string
	// Operator requires an owner or admin role at the school. The roles are read on every
	// request rather than trusted from the time of consent: an operator demoted since is refused
	// at once.
	Operator bool
	// RolesFor reads the member's roles, without requiring any, when the grant holds one of
	// these scopes (a surface that decides per call what an operator may do).
	RolesFor []string
}

// Access is who a request that passed a Door acts for.
type Access struct {
	Grant Grant
	// Roles are the member's roles at the school, most powerful first, when the policy read
	// them (nil otherwise).
	Roles []storage.Role
}

// Anonymous reports whether the request came in without a token (Policy.Anonymous): a grant
// that passed the door always names a member.
func (a Access) Anonymous() bool { return a.Grant.MemberID == 0 }

// Operator reports whether the roles read name an owner or admin of the school.
func (a Access) Operator() bool { return slices.ContainsFunc(a.Roles, storage.Role.IsOperator) }

// RefusalKind says why a Door refused a request.
type RefusalKind int

const (
	// NoToken: the request carried no bearer token.
	NoToken RefusalKind = iota + 1
	// InvalidToken: a malformed header, or a forged, unknown, revoked, expired or foreign-origin
	// token.
	InvalidToken
	// OtherOrganization: the token was issued for another school (an InvalidToken whose answer
	// tells the client to authorize again).
	OtherOrganization
	// NoVerdict: the token could not be checked (the client may retry).
	NoVerdict
	// NoMember: the token names no resource owner; every protected surface serves a person.
	NoMember
	// MissingScope: the grant holds none of the policy's scopes; Refusal.Scope is the one to ask
	// for.
	MissingScope
	// RoleRefused: the member is not an owner or admin of the school.
	RoleRefused
	// RolesUnavailable: the member's roles could not be read.
	RolesUnavailable
)

// RefusalKindOf is the refusal a Verifier's error amounts to: NoToken, OtherOrganization,
// NoVerdict, or InvalidToken for anything else.
func RefusalKindOf(err error) RefusalKind {
	switch {
	case errors.Is(err, ErrNoVerdict):
		return NoVerdict
	case errors.Is(err, ErrOtherOrganization):
		return OtherOrganization
	case errors.Is(err, ErrNoToken):
		return NoToken
	}
	return InvalidToken
}

// String is the kind's name as a metric label: "missing", "invalid", "other_school",
// "no_verdict", "no_member", "insufficient_scope", "not_operator", "roles_unavailable".
func (k RefusalKind) String() string {
	if k < NoToken || k > RolesUnavailable {
		return "unknown"
	}
	return [...]string{"missing", "invalid", "other_school", "no_verdict", "no_member",
		"insufficient_scope", "not_operator", "roles_unavailable"}[k-NoToken]
}

// Verdicts on a request that passed a door, besides the refusals' kinds.
const (
	// VerdictOK: a token was verified and the policy met.
	VerdictOK = "ok"
	// VerdictAnonymous: no token, and the policy lets such a request in as nobody.
	VerdictAnonymous = "anonymous"
)

// Verdict names a door's answer as a metric label: VerdictOK, VerdictAnonymous, or the
// refusal's kind.
func Verdict(a Access, refusal *Refusal) string {
	switch {
	case refusal != nil:
		return refusal.Kind.String()
	case a.Anonymous():
		return VerdictAnonymous
	}
	return VerdictOK
}

// VerdictObserver is a Verifier that is also told every Door's verdict on a request (the
// server's metrics count them by surface). A Door whose Verifier is one tells it after deciding;
// the verdict is one of Verdict's labels.
type VerdictObserver interface {
	Verifier
	ObserveVerdict(ctx context.Context, verdict string)
}

// Refusal is why a request may not come in, for the surface to answer in its own way.
type Refusal struct {
	Kind RefusalKind
	// Scope is the scope to ask for (MissingScope).
	Scope string
	// Err is the refusal as a verification error: what Protected.WriteError answers for the
	// kinds about the token (NoMember is ErrInvalidToken, RolesUnavailable an ErrNoVerdict).
	Err error
}

// Authenticate lets a request through the door or says why not. In order:
//
//  1. the bearer token, through the Verifier (origin binding, school, lifetime, revocation and
//     the refresh rotation are its business); a missing verdict is logged;
//  2. a member: a token without a resource owner names nobody whose data could be served;
//  3. the policy's scopes, so that a client can step up (RFC 6750 section 3.1);
//  4. the member's roles, read now, when the policy needs them (a failed read is logged).
//
// A Verifier that is a VerdictObserver is then told the verdict.
func (d Door) Authenticate(r *http.Request, p Policy) (Access, *Refusal) {
	a, refusal := d.authenticate(r, p)
	if o, ok := d.Verifier.(VerdictObserver); ok {
		o.ObserveVerdict(r.Context(), Verdict(a, refusal))
	}
	return a, refusal
}

func (d Door) authenticate(r *http.Request, p Policy) (Access, *Refusal) {
	ctx := r.Context()
	log := d.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	token, err := BearerToken(r)
	if err != nil {
		return Access{}, &Refusal{Kind: InvalidToken, Err: ErrInvalidToken}
	}
	if token == "" && p.Anonymous {
		return Access{}, nil
	}
	g, err := d.Verifier.Verify(ctx, token)
	if err != nil {
		kind := RefusalKindOf(err)
		if kind == NoVerdict {
			log.LogAttrs(ctx, slog.LevelError, d.Name+": token check failed", slog.String("error", err.Error()))
		}
		return Access{}, &Refusal{Kind: kind, Err: err}
	}
	if g.MemberID == 0 {
		return Access{}, &Refusal{Kind: NoMember, Err: ErrInvalidToken}
	}
	if len(p.Scopes) > 0 && !slices.ContainsFunc(p.Scopes, func(s string) bool { return s != "" && g.HasScope(s) }) {
		return Access{}, &Refusal{Kind: MissingScope, Scope: p.Scopes[0],
			Err: fmt.Errorf("resource: the grant holds none of %q", p.Scopes)}
	}
	a := Access{Grant: g}
	if !p.Operator && !slices.ContainsFunc(p.RolesFor, g.HasScope) {
		return a, nil
	}
	if a.Roles, err = d.Roles.GetRoles(ctx, g.MemberID); err != nil {
		// Whether the member is still an operator is part of the verdict on this request.
		log.LogAttrs(ctx, slog.LevelError, d.Name+": role check failed", slog.String("error", err.Error()))
		return Access{}, &Refusal{Kind: RolesUnavailable, Err: fmt.Errorf("%w: %w", ErrNoVerdict, err)}
	}
	if p.Operator && !a.Operator() {
		return Access{}, &Refusal{Kind: RoleRefused, Err: errors.New("resource: not an owner or admin of the school")}
	}
	return a, nil
}
