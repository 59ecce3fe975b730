// Package accountstore holds the shapes package account keeps in a store (one-time links, a
// member's sessions and connected applications, security events) and the store interfaces over
// them, which storage/gormstore implements. It is a leaf (it imports only storage and audit) so
// that the store can implement them without importing package account, which imports consent,
// whose tests open a gormstore. Package account re-exports every name here; use those.
package accountstore

import (
	"context"
	"time"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/storage"
)

// Purpose is what a one-time link is for.
type Purpose string

// Link purposes.
const (
	PurposeInvitation  Purpose = "invitation"
	PurposeReset       Purpose = "password_reset"
	PurposeEmailChange Purpose = "email_change"
)

// Link is a one-time link's stored form. The token the e-mail carries is never stored: ID is
// its keyed hash (account's linkID).
type Link struct {
	ID       string
	SchoolID int64 // set by the store from the context's school
	MemberID int64
	Purpose  Purpose
	// Email is the address the link was sent to: the member's for an invitation or a reset,
	// the new address for an e-mail change.
	Email string
	// PasswordStamp is account.PasswordStamp(the member's password hash) when the link was
	// made. A reset or invitation link is honoured only while it still matches, so a link dies
	// when the password changes any other way.
	PasswordStamp string
	CreatedAt     time.Time
	ExpiresAt     time.Time
	UsedAt        time.Time // zero while unused
}

// Links stores one-time links. Every method is school-scoped: a link made at one school is not
// found at another.
type Links interface {
	// CreateLink stores l and deletes every other unused link of the same member and purpose at
	// the school, so a new invitation or reset replaces the earlier one.
	CreateLink(ctx context.Context, l Link) error
	// GetLink returns the link of id and purpose if it is unused and unexpired at `at`;
	// ErrNotFound otherwise (whatever the reason, so a page cannot tell them apart).
	GetLink(ctx context.Context, id string, purpose Purpose, at time.Time) (Link, error)
	// ConsumeLink marks the link used at `at` and returns it, in one statement: of two
	// concurrent calls exactly one succeeds. ErrNotFound as for GetLink.
	ConsumeLink(ctx context.Context, id string, purpose Purpose, at time.Time) (Link, error)
	// DeleteMemberLinks deletes the member's unused links of purpose at every school (a
	// password set another way ends every reset link). Deployment-wide.
	DeleteMemberLinks(ctx context.Context, memberID int64, purpose Purpose) error
}

// SessionInfo is one of a member's sign-in sessions as the account page lists it.
type SessionInfo struct {
	ID         string // the store id (keyed hash), never the cookie's token
	CreatedAt  time.Time
	LastSeenAt time.Time
	ExpiresAt  time.Time
	UserAgent  string
	ClientAddr string
}

// Sessions lists and ends a member's sign-in sessions.
type Sessions interface {
	// ListMemberSessions returns the member's sessions at the context's school that have not
	// expired at `at`, most recently seen first. School-scoped.
	ListMemberSessions(ctx context.Context, memberID int64, at time.Time) ([]SessionInfo, error)
	// DeleteMemberSession ends one session of the member at the context's school; ErrNotFound
	// if it is not theirs there. School-scoped.
	DeleteMemberSession(ctx context.Context, memberID int64, id string) error
	// DeleteOtherSessions ends every session of the member except keep (may be ""): at the
	// context's school, or at every school when everywhere is set (a new password ends them
	// all). It returns how many it ended.
	DeleteOtherSessions(ctx context.Context, memberID int64, keep string, everywhere bool) (int, error)
}

// ConnectedApp is a client holding a live grant for a member at a school.
type ConnectedApp struct {
	ClientID   string
	ClientName string
	// Scopes are every scope granted to the client by the member's live grants, sorted.
	Scopes []string
	// GrantedAt is when the member first approved the client among its live grants;
	// LastUsedAt is the latest token issued to it (a code exchange or a refresh).
	GrantedAt  time.Time
	LastUsedAt time.Time
}

// Apps lists and removes the applications holding a member's grants.
type Apps interface {
	// ListConnectedApps returns every client with a live (unrevoked, unexpired at `at`) token
	// pair for the member at the context's school, by name. School-scoped.
	ListConnectedApps(ctx context.Context, memberID int64, at time.Time) ([]ConnectedApp, error)
	// RevokeConnectedApp revokes, at `at` and in one transaction, every pair of the client for
	// the member at the context's school (and deactivates the member's unused codes of it, so
	// that no exchange or refresh in flight leaves a live pair behind), and returns how many
	// pairs. School-scoped.
	RevokeConnectedApp(ctx context.Context, memberID int64, clientID string, at time.Time) (int, error)
	// RevokeAllConnectedApps revokes every pair (and unused code) of the member at every school
	// ("also sign out of all applications" with a new password). Deployment-wide.
	RevokeAllConnectedApps(ctx context.Context, memberID int64, at time.Time) (int, error)
}

// Event is an entry of the security event log (package audit), which holds a member's
// security events (signed in, password changed, application removed ...) with every other
// school event: the account page lists the member's own.
type Event = audit.Event

// Events is the security event log's store.
type Events = audit.Store

// Members is what this package needs of the member store (storage.Members, in part).
type Members interface {
	CreateMember(ctx context.Context, m storage.Member) (storage.Member, error)
	GetMember(ctx context.Context, id int64) (storage.Member, error)
	GetMemberByEmail(ctx context.Context, email string) (storage.Member, error)
	UpdateMember(ctx context.Context, id int64, fn func(storage.Member) (storage.Member, error)) (storage.Member, error)
	SetRoles(ctx context.Context, memberID int64, roles []storage.Role) error
	GetRoles(ctx context.Context, memberID int64) ([]storage.Role, error)
}

// Store is everything the account flows read and write. storage/gormstore implements it.
type Store interface {
	Members
	Links
	Sessions
	Apps
	Events
	storage.Transactions
}
