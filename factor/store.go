package factor

import (
	"context"
	"time"
)

// TOTP is a member's TOTP factor at a school as the store keeps it.
type TOTP struct {
	MemberID int64
	// Sealed is the secret sealed with AES-GCM under a key derived from the system secret; the
	// store never sees the secret itself.
	Sealed    []byte
	CreatedAt time.Time
	// ConfirmedAt is zero while the factor is pending: enrolled but not yet proven with a code.
	// A pending factor is no factor.
	ConfirmedAt time.Time
	// LastStep is the last accepted RFC 6238 time step (unix seconds / 30); a code of that step
	// or an earlier one is never accepted again.
	LastStep int64
}

// RecoveryCode is one stored recovery code: only its keyed hash.
type RecoveryCode struct {
	Hash      string
	CreatedAt time.Time
	UsedAt    time.Time // zero while unused
}

// Store keeps members' TOTP secrets and recovery codes. Every method is school-scoped, by the
// context's school: a factor enrolled at one school is not found at another.
type Store interface {
	Admin
	SessionMarker
	// PutPendingTOTP stores a pending (unconfirmed) TOTP factor for the member, replacing an
	// earlier pending one. storage.ErrAlreadyExists if the member has a confirmed one: it must be removed
	// first.
	PutPendingTOTP(ctx context.Context, memberID int64, sealed []byte, at time.Time) error
	// GetTOTP returns the member's TOTP factor, pending or confirmed; storage.ErrNotFound if none.
	GetTOTP(ctx context.Context, memberID int64) (TOTP, error)
	// ConfirmTOTP confirms the pending factor at `at` with step as its first accepted step, in
	// one statement; storage.ErrNotFound if there is no pending factor (already confirmed, or none).
	ConfirmTOTP(ctx context.Context, memberID int64, step int64, at time.Time) error
	// AcceptTOTPStep records step as the last accepted one if it is later than the stored one,
	// in one compare-and-set statement: of two concurrent uses of one code exactly one succeeds.
	// storage.ErrNotFound if the step is not later or the member has no confirmed factor.
	AcceptTOTPStep(ctx context.Context, memberID int64, step int64) error
	// DeleteTOTP deletes the member's TOTP factor (pending or confirmed) and every recovery
	// code, which come with it; storage.ErrNotFound if there was no TOTP factor.
	DeleteTOTP(ctx context.Context, memberID int64) error
	// ReplaceRecoveryCodes deletes the member's recovery codes and stores hashes as the new ones,
	// in one transaction.
	ReplaceRecoveryCodes(ctx context.Context, memberID int64, hashes []string, at time.Time) error
	// ConsumeRecoveryCode marks the member's unused code of hash used at `at`, in one statement:
	// of two concurrent uses exactly one succeeds. storage.ErrNotFound if there is no such unused code.
	ConsumeRecoveryCode(ctx context.Context, memberID int64, hash string, at time.Time) error
}

// SessionMarker records on a sign-in session how the member proved who they are, for step-up:
// a signed-in member who enters a second factor again refreshes the session's factor time.
type SessionMarker interface {
	// MarkSessionFactor sets the session's authentication methods and factor time; storage.ErrNotFound
	// if the context's school has no session of that id. School-scoped.
	MarkSessionFactor(ctx context.Context, sessionID string, amr []string, at time.Time) error
}
