package roster

import (
	"context"
	"errors"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/proctorhq/proctor/storage"
)

// MaxSearch bounds a search text, in bytes: an e-mail address is at most 254.
const MaxSearch = 256

// CheckSearch refuses a search text a store cannot match literally: longer than MaxSearch, not
// UTF-8, or holding a control character (SQLite ends a pattern at NUL, PostgreSQL refuses it).
func CheckSearch(s string) error {
	switch {
	case len(s) > MaxSearch:
		return errors.New("search text too long")
	case !utf8.ValidString(s):
		return errors.New("search text is not UTF-8")
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		return errors.New("search text holds a control character")
	}
	return nil
}

// Query selects a page of the roster.
type Query struct {
	// Search keeps members whose e-mail address or name contains it, ignoring case (ASCII case
	// on SQLite, Unicode case on PostgreSQL) and surrounding space; "" keeps everyone. It is
	// matched literally: % and _ are not wildcards. CheckSearch says which texts are refused
	// (storage.ErrInvalidArgument).
	Search string
	Page   storage.Page
}

// Entry is one member of the school as the administration pages show them.
type Entry struct {
	// Member is the identity, without its password hash.
	Member storage.Member
	// Roles are the member's roles at the school, most powerful first; never empty.
	Roles []storage.Role
	// HasPassword is set when the member can sign in with a password.
	HasPassword bool
	// InvitationExpiresAt is the expiry of the member's unused, unexpired invitation at the
	// school, zero when there is none.
	InvitationExpiresAt time.Time
	// LastSignInAt is the member's latest sign-in at the school, zero when none is known: the
	// later of their latest successful sign-in in the security event log and their latest
	// session's start (a session ends at sign-out, an event is purged after the log's
	// retention: either alone can miss one).
	LastSignInAt time.Time
}

// Invited reports whether the member has no password yet and a live invitation.
func (e Entry) Invited() bool { return !e.HasPassword && !e.InvitationExpiresAt.IsZero() }

// Store reads a school's roster and ends what a member holds there. School-scoped.
type Store interface {
	// ListRoster pages through the members holding a role at the context's school, by member
	// id, seen at `at` (which decides whether an invitation is still live).
	ListRoster(ctx context.Context, q Query, at time.Time) (entries []Entry, next string, err error)
	// GetRosterEntry returns one member of the school; ErrNotFound for a member without a role
	// there.
	GetRosterEntry(ctx context.Context, memberID int64, at time.Time) (Entry, error)
	// RevokeSchoolGrants revokes, at `at` and in one transaction, every token pair of the
	// member at the context's school and deactivates their unused authorization codes there,
	// and returns how many pairs it revoked. Grants at other schools are left alone.
	RevokeSchoolGrants(ctx context.Context, memberID int64, at time.Time) (int, error)
	// DeleteOtherSessions ends sessions of the member (accountstore.Sessions); with keep ""
	// and everywhere false, every session at the context's school.
	DeleteOtherSessions(ctx context.Context, memberID int64, keep string, everywhere bool) (int, error)
}
