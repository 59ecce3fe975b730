package factor

import "context"

// Kind is a kind of second factor.
type Kind string

// Factor kinds.
const (
	KindTOTP         Kind = "totp"
	KindRecoveryCode Kind = "recovery_code"
	KindPasskey      Kind = "passkey"
)

// Authentication method references (RFC 8176) a session records and tokens report.
const (
	AMRPassword    = "pwd" // a password
	AMROTP         = "otp" // a TOTP code or a recovery code
	AMRHardwareKey = "hwk" // a passkey bound to a device (not synced)
	AMRSoftwareKey = "swk" // a synced passkey (backup eligible)
	AMRMultiFactor = "mfa" // more than one factor
)

// Summary is what a member has enrolled at a school, as lists and admin pages show it.
type Summary struct {
	TOTP bool
	// RecoveryCodesLeft counts unused recovery codes.
	RecoveryCodesLeft int
	Passkeys          int
}

// Any reports whether the member has a second factor (recovery codes alone are not one: they
// come with TOTP).
func (s Summary) Any() bool { return s.TOTP || s.Passkeys > 0 }

// Admin is what member administration needs of the factor store. School-scoped.
type Admin interface {
	// FactorSummaries returns the summaries of the given members at the context's school; a
	// member with nothing enrolled is absent from the map.
	FactorSummaries(ctx context.Context, memberIDs []int64) (map[int64]Summary, error)
	// ResetMemberFactors deletes every factor of the member at the context's school (TOTP,
	// recovery codes, passkeys) and returns how many it deleted.
	ResetMemberFactors(ctx context.Context, memberID int64) (int, error)
}
