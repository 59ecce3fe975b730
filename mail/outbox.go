package mail

import (
	"context"
	"time"
)

// State is where an outbox entry stands.
type State string

// Delivery states. An entry starts pending; a worker claims it (sending, with a lease) and then
// marks it sent, puts it back to pending with a later NextAttemptAt, or marks it failed after
// its last attempt. A claimed entry whose lease ran out (its worker died) is due again.
const (
	StatePending State = "pending"
	StateSending State = "sending"
	StateSent    State = "sent"
	StateFailed  State = "failed"
)

// Entry is one row of the outbox.
type Entry struct {
	ID int64
	// SchoolID is the school the message is sent for (its From address and name).
	SchoolID int64
	// Kind names the message ("invitation", "password_reset", ...): logs and metrics name
	// messages by it, never by their content or recipient.
	Kind string
	// Payload is the message, sealed by this package: the store keeps it opaque. Links in
	// messages carry one-time tokens, so the database never holds them readable.
	Payload       []byte
	State         State
	Attempts      int
	NextAttemptAt time.Time
	LeaseUntil    time.Time // zero unless State is StateSending
	LastError     string
	CreatedAt     time.Time
	SentAt        time.Time // zero unless State is StateSent
}

// Outbox is the durable queue of messages. It is not school-scoped: entries name their school,
// and one worker serves every school. storage/gormstore implements it.
type Outbox interface {
	// EnqueueMail stores e as pending, due at e.NextAttemptAt (zero: now), and returns its id.
	// It runs in the transaction ctx carries (storage.Transactions), if any.
	EnqueueMail(ctx context.Context, e Entry) (int64, error)
	// ClaimMail marks at most limit due entries as sending with a lease until now+lease and
	// returns them, oldest first (by id), with Attempts counting this claim. Due: pending with
	// NextAttemptAt at or before now, or sending with an expired lease. Two concurrent claims
	// never return the same entry.
	ClaimMail(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]Entry, error)
	// MarkMailSent records delivery at `at` and erases the payload. storage.ErrNotFound for an unknown id.
	MarkMailSent(ctx context.Context, id int64, at time.Time) error
	// RetryMail puts a claimed entry back to pending, due at next, with the error of the attempt.
	// storage.ErrNotFound unless the entry is claimed (sending).
	RetryMail(ctx context.Context, id int64, next time.Time, lastError string) error
	// FailMail gives up on an entry at `at`: failed, with its last error, payload erased.
	// storage.ErrNotFound for an unknown id.
	FailMail(ctx context.Context, id int64, at time.Time, lastError string) error
	// MailEntry returns one entry as stored (operators' tools and tests). storage.ErrNotFound for an
	// unknown id.
	MailEntry(ctx context.Context, id int64) (Entry, error)
}
