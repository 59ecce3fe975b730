package storage

import "context"

// MaxDoctorExamples bounds the example ids a Finding carries, whatever its Count: a check that
// finds a million rows must still answer with a short line.
const MaxDoctorExamples = 10

// Finding is one kind of inconsistency a consistency check found in the database.
//
// A finding names rows by ids and counts only: never a token signature, a session's keyed hash,
// a client secret's hash or a key's private half, so that its output can be pasted into a ticket.
type Finding struct {
	// Check names the check ("oauth.live_pairs_in_revoked_grant" ...); docs/doctor.md says what
	// each means and what to do about it.
	Check string `json:"check"`
	// Count is how many rows (or schools, keys, migrations: Detail says which) the check found.
	Count int64 `json:"count"`
	// Detail says in words what was found.
	Detail string `json:"detail"`
	// Examples identify up to MaxDoctorExamples of the rows counted, lowest first.
	Examples []string `json:"examples,omitempty"`
}

// DoctorOptions is what a consistency check needs to know beyond the database.
type DoctorOptions struct {
	// SchoolIDs are the schools the school files configure; one without a school row is
	// reported. Nil skips that check.
	SchoolIDs []int64
	// OpenKey tries a stored signing key of the school the way the servers would use it,
	// answering nil if it is usable and otherwise an error whose message says why without any
	// key material. Decrypting is the keys package's business, not the store's, so the caller
	// supplies it. Nil skips that check.
	OpenKey func(ctx context.Context, schoolID int64, key SigningKey) error
}

// Doctor checks the database's consistency (`proctor doctor`). Check only reads: it never
// migrates, repairs or deletes anything, so it is safe against a live deployment. An empty
// result means nothing was found; an error means the checks could not run (the database is
// unreachable, the context ended), not that something is inconsistent.
type Doctor interface {
	Check(ctx context.Context, opts DoctorOptions) ([]Finding, error)
}
