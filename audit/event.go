package audit

import (
	"context"
	"slices"
	"strings"
	"time"
)

// Kind names what happened.
type Kind string

// Event kinds. A kind is a fact, its Result says how it ended.
const (
	// Signing in and its protection.
	KindSignIn        Kind = "sign_in"        // success, failure, throttled
	KindLockoutLifted Kind = "lockout_lifted" // by an operator or the CLI
	KindSessionEnded  Kind = "session_ended"  // a member ended one of their sessions
	// KindSignedOutEverywhere: every session ended and every grant revoked.
	KindSignedOutEverywhere Kind = "signed_out_everywhere"

	// Second factors. Detail names the factor ("totp", "recovery_code", "passkey").
	KindFactorEnrolled Kind = "factor_enrolled"
	KindFactorRemoved  Kind = "factor_removed"
	KindFactorUsed     Kind = "factor_used" // success, failure, throttled
	KindFactorsReset   Kind = "factors_reset"

	// Passwords, e-mail and profile.
	KindPasswordResetRequested Kind = "password_reset_requested"
	KindPasswordResetCompleted Kind = "password_reset_completed"
	KindPasswordChanged        Kind = "password_changed"
	KindEmailChanged           Kind = "email_changed"
	KindProfileChanged         Kind = "profile_changed"

	// Membership.
	KindInvitationSent     Kind = "invitation_sent"
	KindInvitationAccepted Kind = "invitation_accepted"
	KindRoleChanged        Kind = "role_changed" // Detail: "student -> admin"
	KindMemberRemoved      Kind = "member_removed"

	// Consent and grants. ClientID and Scopes name the client and what it asked for.
	KindConsentApproved Kind = "consent_approved"
	KindConsentDenied   Kind = "consent_denied"
	// KindGrantRevoked: Actor says by whom (the member, an operator, or the system on refresh
	// token reuse, Detail "reuse_detected").
	KindGrantRevoked Kind = "grant_revoked"

	// Clients and keys.
	KindClientCreated       Kind = "client_created"
	KindClientSecretRotated Kind = "client_secret_rotated"
	KindClientDeleted       Kind = "client_deleted"
	KindSigningKeyRotated   Kind = "signing_key_rotated"
)

// Kinds lists every kind, in the order of the constants above: the admin page's filter and the
// CLI's --kind accept these.
var Kinds = []Kind{
	KindSignIn, KindLockoutLifted, KindSessionEnded, KindSignedOutEverywhere,
	KindFactorEnrolled, KindFactorRemoved, KindFactorUsed, KindFactorsReset,
	KindPasswordResetRequested, KindPasswordResetCompleted, KindPasswordChanged, KindEmailChanged, KindProfileChanged,
	KindInvitationSent, KindInvitationAccepted, KindRoleChanged, KindMemberRemoved,
	KindConsentApproved, KindConsentDenied, KindGrantRevoked,
	KindClientCreated, KindClientSecretRotated, KindClientDeleted, KindSigningKeyRotated,
}

// KnownKind reports whether k is one of Kinds.
func KnownKind(k Kind) bool { return slices.Contains(Kinds, k) }

// Result is how an event ended.
type Result string

// Results. The zero Result is recorded as ResultSuccess.
const (
	ResultSuccess   Result = "success"
	ResultFailure   Result = "failure"
	ResultThrottled Result = "throttled" // refused by a rate limit before it was evaluated
)

// Actor is who caused an event.
type Actor string

// Actors. ActorID is the member behind ActorMember and ActorOperator; it is 0 for the others.
const (
	ActorMember   Actor = "member"   // a member acting on their own account (or trying to)
	ActorOperator Actor = "operator" // an owner or admin, through the admin pages or the REST API
	ActorCLI      Actor = "cli"      // someone with the database and the secret, at the command line
	ActorSystem   Actor = "system"   // Proctor itself (refresh token reuse detection, ...)
)

// Event is one entry of the log.
type Event struct {
	ID       int64
	SchoolID int64 // set by the store from the context's school
	Kind     Kind
	Result   Result
	At       time.Time
	Actor    Actor
	// ActorID is the member who acted (0 when Actor is not a member or the member is unknown:
	// a failed sign-in with an e-mail nobody has).
	ActorID int64
	// SubjectID is the member acted upon (0 when none: a client or key event).
	SubjectID int64
	ClientID  string
	Scopes    []string
	// ClientAddr, UserAgent and RequestID say where the request came from (empty outside one).
	ClientAddr string
	UserAgent  string
	RequestID  string
	// Detail is a short plain note (the factor kind, "student -> admin", a key id), never a
	// secret.
	Detail string
}

// Filter selects events for Store.ListSecurityEvents. Zero fields select everything.
type Filter struct {
	// MemberID selects events whose actor or subject is that member.
	MemberID int64
	Kinds    []Kind
	// Since and Until bound At: Since <= At < Until.
	Since, Until time.Time
	// BeforeID pages backwards: only events with ID < BeforeID (the last ID of the previous page).
	BeforeID int64
	// Limit bounds the page (the store clamps it to 1..MaxPage).
	Limit int
}

// MaxPage is the largest page ListSecurityEvents returns.
const MaxPage = 500

// Store keeps the log. Every method is school-scoped, by the context's school.
type Store interface {
	// AppendSecurityEvent stores e (a zero At is the store's clock). Inside a transaction
	// (storage.Transactions) it commits or rolls back with the rest.
	AppendSecurityEvent(ctx context.Context, e Event) error
	// ListSecurityEvents returns the events f selects, newest first (highest ID first).
	ListSecurityEvents(ctx context.Context, f Filter) ([]Event, error)
}

// Purger deletes old events, for the server's purge loop: the retention is a server setting
// (security_events.retention), so the cut-off comes from the caller.
type Purger interface {
	// PurgeSecurityEvents deletes, across every school, at most batch events recorded before
	// `before` and returns how many it deleted.
	PurgeSecurityEvents(ctx context.Context, before time.Time, batch int) (int, error)
}

// RoleChange is the Detail of a KindRoleChanged event, the role names before and after as
// RoleList writes them: "student -> admin". changed is false when both read the same, and then
// no event is recorded.
func RoleChange(before, after []string) (detail string, changed bool) {
	from, to := RoleList(before), RoleList(after)
	return from + " -> " + to, from != to
}

// RoleList is a list of role names as events write it: joined by ", ", "none" for no role.
func RoleList(roles []string) string {
	if len(roles) == 0 {
		return "none"
	}
	return strings.Join(roles, ", ")
}
