package factor

import (
	"context"
	"errors"
	"time"
)

// ErrCounterRegressed is UsePasskey's refusal of a signature counter that did not move
// forward: a sign that the credential's private key was copied out of its authenticator (or
// that a concurrent use of the same assertion came first).
var ErrCounterRegressed = errors.New("factor: passkey signature counter did not increase")

// Passkey is a WebAuthn credential a member registered at a school. Its relying party is the
// school's host, so it is of no use at another school, and the store keeps it under that school
// only: the same credential id may exist at two schools without either seeing the other's.
type Passkey struct {
	ID       int64 // the store's id
	SchoolID int64 // set by the store from the context's school
	MemberID int64
	// CredentialID is the authenticator's id of the credential (unique per school).
	CredentialID []byte
	// PublicKey is the credential's public key as the authenticator sent it (COSE_Key).
	PublicKey []byte
	// AttestationFormat is the attestation statement's format at registration ("none" mostly).
	AttestationFormat string
	// SignCount is the highest signature counter seen; it only moves forward (UsePasskey).
	SignCount uint32
	// AAGUID names the authenticator's model (16 bytes, zero for most synced passkeys).
	AAGUID []byte
	// Transports are the browser's hints of how to reach the authenticator ("internal",
	// "hybrid", "usb" ...), passed back to the browser at sign-in.
	Transports []string
	// BackupEligible says the credential may be synced to other devices (a synced passkey);
	// it is fixed at registration. BackupState says it is backed up now.
	BackupEligible, BackupState bool
	// Name is the member's name for it ("Laptop", "Phone").
	Name       string
	CreatedAt  time.Time
	LastUsedAt time.Time // zero until first used
}

// AMR is the RFC 8176 method a passkey proves: "swk" for a synced (backup-eligible) one, whose
// private key lives in software that copies it between devices, "hwk" for one bound to its
// device.
func (p Passkey) AMR() string {
	if p.BackupEligible {
		return AMRSoftwareKey
	}
	return AMRHardwareKey
}

// ChallengePurpose is what a ceremony's challenge is for.
type ChallengePurpose string

// Challenge purposes.
const (
	ChallengeRegister ChallengePurpose = "register" // a signed-in member adds a passkey
	ChallengeSignIn   ChallengePurpose = "sign_in"  // passwordless sign-in (anyone)
	ChallengeFactor   ChallengePurpose = "factor"   // the second step after a password
)

// Challenge is a WebAuthn ceremony in progress. Its id is the keyed hash of a random value
// held in the browser's short-lived cookie; Session is the ceremony's state as the relying
// party library keeps it (the challenge, which credentials may answer, the user verification
// asked for), which holds nothing secret: the challenge itself is sent to the browser.
type Challenge struct {
	ID       string
	SchoolID int64 // set by the store from the context's school
	Purpose  ChallengePurpose
	// MemberID is the member the ceremony is for (0 for a passwordless sign-in, which does not
	// know yet).
	MemberID  int64
	Session   []byte
	CreatedAt time.Time
	ExpiresAt time.Time
}

// Passkeys is what the passkey ceremonies and pages need of the store. Every method is
// school-scoped, by the context's school: a passkey or a challenge of one school is not found
// at another (storage.ErrNotFound).
type Passkeys interface {
	// CreatePasskey stores p for its member at the context's school and returns it with its id
	// (a zero CreatedAt is the store's clock). A credential id already registered at the school
	// fails with storage.ErrAlreadyExists, an unknown member with storage.ErrNotFound.
	CreatePasskey(ctx context.Context, p Passkey) (Passkey, error)
	// ListPasskeys returns the member's passkeys at the context's school, oldest first.
	ListPasskeys(ctx context.Context, memberID int64) ([]Passkey, error)
	// PasskeyByCredentialID returns the passkey of that credential id at the context's school.
	PasskeyByCredentialID(ctx context.Context, credentialID []byte) (Passkey, error)
	// UsePasskey records a verified assertion of passkey id: the new signature counter, the
	// backup state and the time. It refuses, with ErrCounterRegressed and no change, a counter
	// that does not move forward (unless both the stored and the new counter are 0: many
	// authenticators, synced passkeys among them, never count). The condition is part of the
	// UPDATE, so of two concurrent uses of one counter value only one succeeds.
	UsePasskey(ctx context.Context, id int64, signCount uint32, backupState bool, at time.Time) error
	// RenamePasskey sets the name of the member's passkey id; storage.ErrNotFound if the member
	// has no such passkey at the school.
	RenamePasskey(ctx context.Context, memberID, id int64, name string) error
	// DeletePasskey deletes the member's passkey id; storage.ErrNotFound if the member has no
	// such passkey at the school.
	DeletePasskey(ctx context.Context, memberID, id int64) error

	// CreatePasskeyChallenge stores c at the context's school. A taken id fails with
	// storage.ErrAlreadyExists.
	CreatePasskeyChallenge(ctx context.Context, c Challenge) error
	// ConsumePasskeyChallenge deletes the unexpired challenge of id and purpose at the
	// context's school and returns it, in one statement: of concurrent consumers only one gets
	// it, the others storage.ErrNotFound, as does an expired, unknown or used challenge.
	ConsumePasskeyChallenge(ctx context.Context, id string, purpose ChallengePurpose, at time.Time) (Challenge, error)
}
