package mail

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/storage"
)

// Sender delivers one message, the content of outbox entry id. SMTPSender is the real one.
// A *SendError with Permanent set is not retried.
type Sender interface {
	Send(ctx context.Context, id int64, m Message) error
}

// Store is what the worker needs of the database: the outbox, and transactions to run an
// Expander in together with the mark of its request (storage.InTx).
type Store interface {
	Outbox
	storage.Transactions
}

// Options tune a Worker; zero values take the defaults below.
type Options struct {
	// Expanders handle request entries (Queue.Request) by kind.
	Expanders map[string]Expander
	Logger    *slog.Logger
	Now       func() time.Time
	// Poll is how often the worker looks for due entries when nothing wakes it.
	Poll time.Duration
	// Lease is how long a claimed entry is the worker's: after it, another worker may send it.
	Lease time.Duration
	// Batch is how many entries one claim takes.
	Batch int
	// MaxAttempts is how many attempts an entry gets before it fails.
	MaxAttempts int
	// Backoff is the wait after the first failed attempt; it doubles after each further one,
	// up to MaxBackoff, with up to a fifth added at random so that retries spread out.
	Backoff    time.Duration
	MaxBackoff time.Duration
}

// Defaults of Options.
const (
	DefaultPoll        = 5 * time.Second
	DefaultLease       = 2 * time.Minute
	DefaultBatch       = 10
	DefaultMaxAttempts = 10
	DefaultBackoff     = 30 * time.Second
	DefaultMaxBackoff  = time.Hour
)

// Worker sends the outbox's due messages. One worker per process is enough; several (replicas)
// share the outbox safely, since claims never overlap.
type Worker struct {
	store  Store
	sender Sender
	queue  *Queue
	opts   Options
	wake   chan struct{}
}

// NewWorker returns a worker that opens payloads sealed by queue (the same system secret) and
// sends them with sender.
func NewWorker(store Store, sender Sender, secret config.Secret, opts Options) (*Worker, error) {
	if store == nil || sender == nil {
		return nil, errors.New("mail: a worker needs a store and a sender")
	}
	q, err := NewQueue(store, secret, opts.Now)
	if err != nil {
		return nil, err
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	orDefault(&opts.Poll, DefaultPoll)
	orDefault(&opts.Lease, DefaultLease)
	orDefault(&opts.Batch, DefaultBatch)
	orDefault(&opts.MaxAttempts, DefaultMaxAttempts)
	orDefault(&opts.Backoff, DefaultBackoff)
	orDefault(&opts.MaxBackoff, DefaultMaxBackoff)
	return &Worker{store: store, sender: sender, queue: q, opts: opts, wake: make(chan struct{}, 1)}, nil
}

// orDefault sets an option left at zero (or set below it) to its default.
func orDefault[T ~int | ~int64](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// Wake makes a waiting Run look for due entries now. It never blocks (Queue.OnEnqueue).
func (w *Worker) Wake() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Run sends due messages until ctx ends. A message in flight when ctx ends is finished first
// (its SMTP dialogue and the outcome's record do not use ctx), so shutdown waits at most one
// delivery's timeout.
func (w *Worker) Run(ctx context.Context) {
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		case <-w.wake:
		}
		for ctx.Err() == nil {
			n, err := w.RunOnce(ctx)
			if err != nil {
				w.opts.Logger.WarnContext(ctx, "mail outbox: claim failed", "err", err)
				break
			}
			if n < w.opts.Batch {
				break
			}
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		timer.Reset(w.opts.Poll)
	}
}

// RunOnce claims one batch of due entries and handles each; it returns how many it claimed.
// Entries left when ctx ends stay claimed until their lease runs out.
func (w *Worker) RunOnce(ctx context.Context) (int, error) {
	entries, err := w.store.ClaimMail(ctx, w.opts.Now(), w.opts.Lease, w.opts.Batch)
	if err != nil {
		return 0, err
	}
	for _, e := range entries {
		if ctx.Err() != nil {
			break
		}
		w.handle(context.WithoutCancel(ctx), e)
	}
	return len(entries), nil
}

func (w *Worker) handle(ctx context.Context, e Entry) {
	log := w.opts.Logger.With("kind", e.Kind, "entry", e.ID, "school_id", e.SchoolID, "attempts", e.Attempts)
	plain, err := w.queue.open(e)
	if err != nil {
		w.fail(ctx, log, e, err)
		return
	}
	defer clear(plain)
	if expand, ok := w.opts.Expanders[e.Kind]; ok {
		err = w.expand(ctx, expand, e, plain)
		if err == nil {
			log.InfoContext(ctx, "mail request handled")
			return
		}
	} else {
		var m Message
		if err := json.Unmarshal(plain, &m); err != nil {
			w.fail(ctx, log, e, fmt.Errorf("mail: undecodable message: %w", err))
			return
		}
		err = w.sender.Send(ctx, e.ID, m)
		if err == nil {
			if err := w.store.MarkMailSent(ctx, e.ID, w.opts.Now()); err != nil {
				// Sent but not recorded: the lease runs out and the message goes again, with
				// the same Message-ID (the at-least-once edge).
				log.ErrorContext(ctx, "mail sent but not marked sent", "err", err)
				return
			}
			log.InfoContext(ctx, "mail sent")
			return
		}
	}
	if IsPermanent(err) || e.Attempts >= w.opts.MaxAttempts {
		w.fail(ctx, log, e, err)
		return
	}
	next := w.opts.Now().Add(w.backoff(e.Attempts))
	if rerr := w.store.RetryMail(ctx, e.ID, next, err.Error()); rerr != nil {
		log.ErrorContext(ctx, "mail retry not recorded", "err", rerr, "cause", err)
		return
	}
	log.WarnContext(ctx, "mail attempt failed, will retry", "err", err, "next_attempt_at", next)
}

// expand runs a request's Expander in a transaction that also marks the request done.
func (w *Worker) expand(ctx context.Context, expand Expander, e Entry, payload []byte) error {
	err := storage.InTx(ctx, w.store, func(ctx context.Context) error {
		if err := expand(ctx, e.SchoolID, payload); err != nil {
			return fmt.Errorf("mail: expand %s: %w", e.Kind, err)
		}
		return w.store.MarkMailSent(ctx, e.ID, w.opts.Now())
	})
	if err != nil {
		return err
	}
	// Whatever the expander sent is due now.
	w.Wake()
	return nil
}

func (w *Worker) fail(ctx context.Context, log *slog.Logger, e Entry, cause error) {
	if err := w.store.FailMail(ctx, e.ID, w.opts.Now(), cause.Error()); err != nil {
		log.ErrorContext(ctx, "mail failure not recorded", "err", err, "cause", cause)
		return
	}
	log.ErrorContext(ctx, "mail failed for good", "err", cause)
}

// backoff is the wait after the attempts-th failed attempt: Backoff doubled attempts-1 times,
// at most MaxBackoff, plus up to a fifth more at random.
func (w *Worker) backoff(attempts int) time.Duration {
	d := w.opts.Backoff
	for i := 1; i < attempts && d < w.opts.MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, w.opts.MaxBackoff)
	return d + time.Duration(rand.Int64N(int64(d)/5+1))
}
