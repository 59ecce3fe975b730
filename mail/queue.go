package mail

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/internal/seal"
)

// Queue puts messages into the outbox, sealed. It is safe for concurrent use.
type Queue struct {
	outbox Outbox
	sealer *seal.Sealer
	now    func() time.Time
	notify atomic.Pointer[func()]
}

// OnEnqueue sets a function called after each entry is put into the outbox (the server passes
// Worker.Wake), so that a message goes out without waiting for the worker's next poll. The
// entry becomes visible when the caller's transaction commits: a worker woken before that finds
// it at its next poll (on SQLite its claim waits for the commit). f must not block.
func (q *Queue) OnEnqueue(f func()) {
	q.notify.Store(&f)
}

// NewQueue returns a queue over outbox whose payloads are sealed under a key derived from the
// system secret; a Worker opens them with the same secret. now may be nil (time.Now).
func NewQueue(outbox Outbox, secret config.Secret, now func() time.Time) (*Queue, error) {
	if outbox == nil {
		return nil, errors.New("mail: no outbox")
	}
	if len(secret) < config.MinSecretBytes {
		return nil, fmt.Errorf("mail: the secret must hold at least %d bytes", config.MinSecretBytes)
	}
	sealer, err := seal.New(secret.Derive(encryptionPurpose))
	if err != nil {
		return nil, fmt.Errorf("mail: %w", err)
	}
	if now == nil {
		now = time.Now
	}
	return &Queue{outbox: outbox, sealer: sealer, now: now}, nil
}

// Send puts m into the outbox, due now, in the transaction ctx carries: the message commits
// with the event that causes it, or not at all.
func (q *Queue) Send(ctx context.Context, m Message) error {
	if m.To == "" || m.Kind == "" || m.SchoolID == 0 {
		return fmt.Errorf("mail: a message needs a school, a kind and a recipient")
	}
	body, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("mail: encode message: %w", err)
	}
	return q.enqueue(ctx, m.SchoolID, m.Kind, body)
}

// Request puts a request into the outbox rather than a message: an entry of a kind some
// Expander of the Worker handles (for instance a password reset asked for an address that may
// not be a member's). The worker hands payload to the Expander, which decides, in its own
// transaction, what to send. Payload is sealed like a message.
func (q *Queue) Request(ctx context.Context, schoolID int64, kind string, payload []byte) error {
	if kind == "" || schoolID == 0 {
		return fmt.Errorf("mail: a request needs a school and a kind")
	}
	return q.enqueue(ctx, schoolID, kind, payload)
}

func (q *Queue) enqueue(ctx context.Context, schoolID int64, kind string, plain []byte) error {
	sealed := q.sealer.Seal(schoolID, kind, plain)
	clear(plain)
	now := q.now()
	_, err := q.outbox.EnqueueMail(ctx, Entry{SchoolID: schoolID, Kind: kind, Payload: sealed, State: StatePending, NextAttemptAt: now, CreatedAt: now})
	if err != nil {
		return fmt.Errorf("mail: enqueue %s: %w", kind, err)
	}
	if f := q.notify.Load(); f != nil && *f != nil {
		(*f)()
	}
	return nil
}

// Expander turns a request entry (Queue.Request) into what it stands for. It runs inside the
// transaction ctx carries, which also marks the request done: whatever it sends with Queue.Send
// commits with that mark, or the request stays due.
type Expander func(ctx context.Context, schoolID int64, payload []byte) error

// encryptionPurpose names the key derived from the system secret for the outbox (HKDF info
// "proctor mail outbox encryption v1"): a key of its own, used for nothing else. Changing it
// would make every queued payload unreadable.
const encryptionPurpose = "mail outbox encryption v1"

// ErrOpen means a payload could not be opened: another system secret, or an altered row.
var ErrOpen = errors.New("mail: cannot open the outbox payload (wrong system secret, or the row was altered)")

// open returns e's payload in the clear. The payload is bound to e's school and kind: a row
// moved to another school or kind does not open.
func (q *Queue) open(e Entry) ([]byte, error) {
	plain, err := q.sealer.Open(e.SchoolID, e.Kind, e.Payload)
	if err != nil {
		// seal's error says which check failed (too short, unknown version, authentication).
		return nil, fmt.Errorf("%w: %w", ErrOpen, err)
	}
	return plain, nil
}
