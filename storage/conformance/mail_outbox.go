package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/proctorhq/proctor/mail"
	"github.com/proctorhq/proctor/storage"
)

func mailEntry(school int64, kind, payload string, due time.Time) mail.Entry {
	return mail.Entry{SchoolID: school, Kind: kind, Payload: []byte(payload), State: mail.StatePending, NextAttemptAt: due, CreatedAt: due}
}

func mustEnqueue(t *testing.T, o mail.Outbox, ctx context.Context, e mail.Entry) int64 {
	t.Helper()
	id, err := o.EnqueueMail(ctx, e)
	must(t, "EnqueueMail", err)
	if id == 0 {
		t.Fatal("EnqueueMail returned id 0")
	}
	return id
}

func mustEntry(t *testing.T, o mail.Outbox, id int64) mail.Entry {
	t.Helper()
	e, err := o.MailEntry(t.Context(), id)
	must(t, fmt.Sprintf("MailEntry(%d)", id), err)
	return e
}

func claimIDs(es []mail.Entry) []int64 {
	ids := make([]int64, len(es))
	for i, e := range es {
		ids[i] = e.ID
	}
	return ids
}

// testMailOutbox: enqueue, claim, deliver; the payload is erased; claims honour due times and
// leases.
// outboxDepth counts what the outbox has not sent yet (the server's gauge).
type outboxDepth interface {
	MailOutboxDepth(ctx context.Context) (int, error)
}

// wantDepth checks the outbox's depth: entries pending or being sent, at every school.
func wantDepth(t *testing.T, s storage.Store, what string, want int) {
	t.Helper()
	n, err := narrow[outboxDepth](t, s).MailOutboxDepth(t.Context())
	must(t, "MailOutboxDepth", err)
	if n != want {
		t.Errorf("outbox depth %s: %d, want %d", what, n, want)
	}
}

func testMailOutbox(t *testing.T, s storage.Store) {
	o := narrow[mail.Outbox](t, s)
	wantDepth(t, s, "of an empty outbox", 0)
	ctx := t.Context()
	t0 := at(5, 10)
	lease := 2 * time.Minute

	_, err := o.EnqueueMail(ctx, mail.Entry{Kind: "k", Payload: []byte("p")})
	wantErr(t, "EnqueueMail without a school", err, storage.ErrInvalidArgument)
	_, err = o.ClaimMail(ctx, t0, 0, 10)
	wantErr(t, "ClaimMail with no lease", err, storage.ErrInvalidArgument)
	_, err = o.ClaimMail(ctx, t0, lease, 0)
	wantErr(t, "ClaimMail with limit 0", err, storage.ErrInvalidArgument)

	first := mustEnqueue(t, o, ctx, mailEntry(1, "invitation", "sealed-1", t0))
	second := mustEnqueue(t, o, ctx, mailEntry(2, "password_reset", "sealed-2", t0.Add(time.Second)))
	later := mustEnqueue(t, o, ctx, mailEntry(1, "invitation", "sealed-3", t0.Add(time.Hour)))
	wantDepth(t, s, "after three entries at two schools", 3)

	wantEqual(t, "entry as enqueued", mustEntry(t, o, first), mail.Entry{
		ID: first, SchoolID: 1, Kind: "invitation", Payload: []byte("sealed-1"), State: mail.StatePending,
		NextAttemptAt: t0, CreatedAt: t0,
	})
	_, err = o.MailEntry(ctx, later+1000)
	wantErr(t, "MailEntry of an unknown id", err, storage.ErrNotFound)

	// Nothing is due before its time.
	got, err := o.ClaimMail(ctx, t0.Add(-time.Second), lease, 10)
	must(t, "ClaimMail before anything is due", err)
	if len(got) != 0 {
		t.Errorf("claim before anything is due: %v", claimIDs(got))
	}
	// The limit holds, oldest first.
	got, err = o.ClaimMail(ctx, t0.Add(time.Minute), lease, 1)
	must(t, "ClaimMail", err)
	wantEqual(t, "first claim", claimIDs(got), []int64{first})
	if len(got) == 1 {
		wantEqual(t, "claimed entry", got[0], mail.Entry{
			ID: first, SchoolID: 1, Kind: "invitation", Payload: []byte("sealed-1"), State: mail.StateSending,
			Attempts: 1, NextAttemptAt: t0.Add(time.Minute + lease), LeaseUntil: t0.Add(time.Minute + lease), CreatedAt: t0,
		})
	}
	got, err = o.ClaimMail(ctx, t0.Add(time.Minute), lease, 10)
	must(t, "ClaimMail", err)
	wantEqual(t, "second claim (the first entry is leased, the third not due)", claimIDs(got), []int64{second})

	// Sent: the payload is gone, the entry is never claimed again.
	sentAt := t0.Add(90 * time.Second)
	must(t, "MarkMailSent", o.MarkMailSent(ctx, first, sentAt))
	e := mustEntry(t, o, first)
	if e.State != mail.StateSent || !e.SentAt.Equal(sentAt) || len(e.Payload) != 0 || e.Attempts != 1 || !e.LeaseUntil.IsZero() {
		t.Errorf("sent entry: %+v", e)
	}
	wantErr(t, "MarkMailSent of an unknown id", o.MarkMailSent(ctx, later+1000, sentAt), storage.ErrNotFound)
	wantDepth(t, s, "after one was sent (one leased, one pending)", 2)

	// Retried: due again at the given time, with the error, the payload kept.
	retryAt := t0.Add(10 * time.Minute)
	must(t, "RetryMail", o.RetryMail(ctx, second, retryAt, "421 try later"))
	e = mustEntry(t, o, second)
	if e.State != mail.StatePending || !e.NextAttemptAt.Equal(retryAt) || e.LastError != "421 try later" ||
		!bytes.Equal(e.Payload, []byte("sealed-2")) || e.Attempts != 1 || !e.LeaseUntil.IsZero() {
		t.Errorf("retried entry: %+v", e)
	}
	wantErr(t, "RetryMail of a pending entry", o.RetryMail(ctx, second, retryAt, "x"), storage.ErrNotFound)
	got, err = o.ClaimMail(ctx, retryAt.Add(-time.Second), lease, 10)
	must(t, "ClaimMail", err)
	if len(got) != 0 {
		t.Errorf("claim before the retry is due: %v", claimIDs(got))
	}
	got, err = o.ClaimMail(ctx, retryAt, lease, 10)
	must(t, "ClaimMail", err)
	wantEqual(t, "claim when the retry is due", claimIDs(got), []int64{second})
	if len(got) == 1 && got[0].Attempts != 2 {
		t.Errorf("second claim of an entry counts %d attempts, want 2", got[0].Attempts)
	}

	// Failed: the payload is gone, the error kept, never claimed again.
	failAt := retryAt.Add(time.Second)
	must(t, "FailMail", o.FailMail(ctx, second, failAt, "550 no such user"))
	e = mustEntry(t, o, second)
	if e.State != mail.StateFailed || e.LastError != "550 no such user" || len(e.Payload) != 0 || !e.SentAt.IsZero() {
		t.Errorf("failed entry: %+v", e)
	}
	wantErr(t, "FailMail of an unknown id", o.FailMail(ctx, later+1000, failAt, "x"), storage.ErrNotFound)
	wantDepth(t, s, "after one was sent and one failed", 1)

	got, err = o.ClaimMail(ctx, t0.Add(24*time.Hour), lease, 10)
	must(t, "ClaimMail", err)
	wantEqual(t, "claim a day later", claimIDs(got), []int64{later})

	// A long error is kept, shortened.
	long := bytes.Repeat([]byte("é"), 5000)
	must(t, "RetryMail with a long error", o.RetryMail(ctx, later, t0.Add(48*time.Hour), string(long)))
	if e := mustEntry(t, o, later); len(e.LastError) == 0 || len(e.LastError) > 2000 {
		t.Errorf("a long error is kept as %d bytes", len(e.LastError))
	}
}

// testMailLeaseExpiry: an entry whose worker died (its lease ran out) is due again, and the late
// worker's outcome still lands.
func testMailLeaseExpiry(t *testing.T, s storage.Store) {
	o := narrow[mail.Outbox](t, s)
	ctx := t.Context()
	t0 := at(6, 9)
	lease := 2 * time.Minute
	id := mustEnqueue(t, o, ctx, mailEntry(1, "invitation", "p", t0))

	got, err := o.ClaimMail(ctx, t0, lease, 10)
	must(t, "ClaimMail", err)
	wantEqual(t, "first claim", claimIDs(got), []int64{id})
	got, err = o.ClaimMail(ctx, t0.Add(lease-time.Second), lease, 10)
	must(t, "ClaimMail", err)
	if len(got) != 0 {
		t.Errorf("claim within the lease: %v", claimIDs(got))
	}
	got, err = o.ClaimMail(ctx, t0.Add(lease), lease, 10)
	must(t, "ClaimMail", err)
	wantEqual(t, "claim once the lease ended", claimIDs(got), []int64{id})
	if len(got) == 1 && (got[0].Attempts != 2 || !got[0].LeaseUntil.Equal(t0.Add(2*lease))) {
		t.Errorf("re-claimed entry: %+v", got[0])
	}
	must(t, "MarkMailSent", o.MarkMailSent(ctx, id, t0.Add(lease+time.Second)))
	got, err = o.ClaimMail(ctx, t0.Add(time.Hour), lease, 10)
	must(t, "ClaimMail", err)
	if len(got) != 0 {
		t.Errorf("claim after delivery: %v", claimIDs(got))
	}
}

// testMailConcurrentClaims: concurrent claimers never receive the same entry and together take
// every one.
func testMailConcurrentClaims(t *testing.T, s storage.Store) {
	o := narrow[mail.Outbox](t, s)
	t0 := at(7, 8)
	const entries, claimers = 50, 8
	want := map[int64]bool{}
	for i := range entries {
		want[mustEnqueue(t, o, t.Context(), mailEntry(1+int64(i%2), "invitation", fmt.Sprint("p", i), t0))] = true
	}
	var (
		mu     sync.Mutex
		seen   = map[int64]int{}
		errs   []error
		lease  = time.Hour
		claimT = t0.Add(time.Minute)
	)
	atOnce(claimers, func(int) {
		for {
			got, err := o.ClaimMail(t.Context(), claimT, lease, 3)
			if errors.Is(err, storage.ErrUnavailable) {
				continue // SQLite's busy timeout under a write storm: try again
			}
			mu.Lock()
			if err != nil {
				errs = append(errs, err)
			}
			for _, e := range got {
				seen[e.ID]++
			}
			mu.Unlock()
			if err != nil || len(got) == 0 {
				return
			}
		}
	})
	for _, err := range errs {
		t.Errorf("ClaimMail: %v", err)
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("entry %d claimed %d times", id, n)
		}
		if !want[id] {
			t.Errorf("claimed unknown entry %d", id)
		}
	}
	if len(seen) != entries {
		t.Errorf("%d entries claimed, want %d", len(seen), entries)
	}
}

// testMailTransactions: an entry enqueued in a transaction commits or rolls back with it.
func testMailTransactions(t *testing.T, s storage.Store) {
	o := narrow[mail.Outbox](t, s)
	t0 := at(8, 7)
	tx, err := s.BeginTx(t.Context())
	must(t, "BeginTx", err)
	rolled := mustEnqueue(t, o, tx, mailEntry(1, "invitation", "rolled back", t0))
	if e, err := o.MailEntry(tx, rolled); err != nil || e.State != mail.StatePending {
		t.Errorf("entry read inside its transaction: %+v, %v", e, err)
	}
	must(t, "Rollback", s.Rollback(tx))
	_, err = o.MailEntry(t.Context(), rolled)
	wantErr(t, "MailEntry after Rollback", err, storage.ErrNotFound)
	got, err := o.ClaimMail(t.Context(), t0.Add(time.Hour), time.Minute, 10)
	must(t, "ClaimMail", err)
	if len(got) != 0 {
		t.Errorf("claim after Rollback: %v", claimIDs(got))
	}

	tx, err = s.BeginTx(t.Context())
	must(t, "BeginTx", err)
	kept := mustEnqueue(t, o, tx, mailEntry(1, "invitation", "committed", t0))
	must(t, "Commit", s.Commit(tx))
	got, err = o.ClaimMail(t.Context(), t0.Add(time.Hour), time.Minute, 10)
	must(t, "ClaimMail", err)
	wantEqual(t, "claim after Commit", claimIDs(got), []int64{kept})

	// Marking sent inside a transaction that rolls back leaves the entry claimed, payload kept.
	tx, err = s.BeginTx(t.Context())
	must(t, "BeginTx", err)
	must(t, "MarkMailSent in a transaction", o.MarkMailSent(tx, kept, t0.Add(time.Hour)))
	must(t, "Rollback", s.Rollback(tx))
	if e := mustEntry(t, o, kept); e.State != mail.StateSending || string(e.Payload) != "committed" {
		t.Errorf("entry after a rolled-back MarkMailSent: %+v", e)
	}
}

// testMailPurge: PurgeExpired deletes sent and failed entries 30 days after they finished, and
// never an unfinished one however old.
func testMailPurge(t *testing.T, s storage.Store) {
	o := narrow[mail.Outbox](t, s)
	ctx := t.Context()
	old := at(1, 0)
	now := old.Add(40 * 24 * time.Hour)
	lease := time.Minute

	sentOld := mustEnqueue(t, o, ctx, mailEntry(1, "a", "p", old))
	failedOld := mustEnqueue(t, o, ctx, mailEntry(2, "a", "p", old))
	sentRecent := mustEnqueue(t, o, ctx, mailEntry(1, "a", "p", old))
	pendingOld := mustEnqueue(t, o, ctx, mailEntry(1, "a", "p", old))
	claimed, err := o.ClaimMail(ctx, old, lease, 3)
	must(t, "ClaimMail", err)
	wantEqual(t, "claim", claimIDs(claimed), []int64{sentOld, failedOld, sentRecent})
	must(t, "MarkMailSent", o.MarkMailSent(ctx, sentOld, old.Add(time.Minute)))
	must(t, "FailMail", o.FailMail(ctx, failedOld, old.Add(time.Minute), "550"))
	must(t, "MarkMailSent", o.MarkMailSent(ctx, sentRecent, now.Add(-29*24*time.Hour)))

	n, err := s.PurgeExpired(ctx, now, 100)
	must(t, "PurgeExpired", err)
	if n != 2 {
		t.Errorf("purge deleted %d rows, want 2", n)
	}
	for _, id := range []int64{sentOld, failedOld} {
		_, err := o.MailEntry(ctx, id)
		wantErr(t, fmt.Sprintf("entry %d after the purge", id), err, storage.ErrNotFound)
	}
	for _, id := range []int64{sentRecent, pendingOld} {
		if _, err := o.MailEntry(ctx, id); err != nil {
			t.Errorf("entry %d after the purge: %v", id, err)
		}
	}
}
