package gormstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/proctorhq/proctor/mail"
	"github.com/proctorhq/proctor/storage"
)

var _ mail.Outbox = (*Store)(nil)

// mailOutboxRow is one entry of the mail outbox (migration 006).
type mailOutboxRow struct {
	ID            int64 `gorm:"primaryKey"`
	SchoolID      int64
	Kind          string
	Payload       []byte
	State         string
	Attempts      int
	NextAttemptAt time.Time
	LeaseUntil    *time.Time
	LastError     string
	CreatedAt     time.Time
	SentAt        *time.Time
	FinishedAt    *time.Time
}

func (mailOutboxRow) TableName() string { return "mail_outbox" }

func (r mailOutboxRow) entry() mail.Entry {
	e := mail.Entry{
		ID: r.ID, SchoolID: r.SchoolID, Kind: r.Kind, Payload: r.Payload, State: mail.State(r.State),
		Attempts: r.Attempts, NextAttemptAt: utc(r.NextAttemptAt), LastError: r.LastError,
		CreatedAt: utc(r.CreatedAt),
	}
	if r.LeaseUntil != nil && e.State == mail.StateSending {
		e.LeaseUntil = utc(*r.LeaseUntil)
	}
	if r.SentAt != nil {
		e.SentAt = utc(*r.SentAt)
	}
	return e
}

const mailOutboxColumns = "id, school_id, kind, payload, state, attempts, next_attempt_at, lease_until, last_error, created_at, sent_at, finished_at"

// maxMailError bounds the last error kept with an entry: it is for operators, and an SMTP
// server's answer can be long.
const maxMailError = 1000

func clipError(s string) string {
	if len(s) <= maxMailError {
		return s
	}
	// Cut at a rune boundary so the column holds valid UTF-8.
	cut := maxMailError
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut]
}

// MailOutboxDepth counts the outbox's entries not sent yet (pending, or claimed and being sent)
// at every school: the server's gauge of how far the mail worker is behind. The count reads the
// partial index of due entries (mail_outbox_due_idx), which holds exactly those.
func (s *Store) MailOutboxDepth(ctx context.Context) (int, error) {
	var n int64
	err := s.conn(ctx).Model(&mailOutboxRow{}).
		Where("state IN ?", []string{string(mail.StatePending), string(mail.StateSending)}).Count(&n).Error
	return int(n), wrap("count mail outbox", err)
}

// EnqueueMail stores a pending entry in the caller's transaction, if ctx carries one. It
// implements mail.Outbox.
func (s *Store) EnqueueMail(ctx context.Context, e mail.Entry) (int64, error) {
	const op = "enqueue mail"
	switch {
	case e.SchoolID == 0:
		return 0, invalidArg(op, "no school")
	case e.Kind == "":
		return 0, invalidArg(op, "no kind")
	case len(e.Payload) == 0:
		return 0, invalidArg(op, "no payload")
	}
	now := s.now()
	if e.CreatedAt.IsZero() {
		e.CreatedAt = now
	}
	if e.NextAttemptAt.IsZero() {
		e.NextAttemptAt = e.CreatedAt
	}
	row := mailOutboxRow{
		SchoolID: e.SchoolID, Kind: e.Kind, Payload: e.Payload, State: string(mail.StatePending),
		NextAttemptAt: dbTime(e.NextAttemptAt), CreatedAt: dbTime(e.CreatedAt),
	}
	if err := s.conn(ctx).Create(&row).Error; err != nil {
		return 0, wrap(op, err)
	}
	return row.ID, nil
}

// ClaimMail leases due entries in one statement. On PostgreSQL the inner SELECT locks the rows it
// picks and skips those another claim holds (FOR UPDATE SKIP LOCKED), so concurrent workers take
// disjoint batches without waiting for each other; a row another claim changed and committed
// meanwhile is re-checked against the WHERE clause and dropped. On SQLite one statement holds the
// database's write lock throughout, which serialises claims. A claimed entry's next_attempt_at is
// its lease end, so that a lapsed lease makes it due by the same condition as a pending entry.
// It implements mail.Outbox.
func (s *Store) ClaimMail(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]mail.Entry, error) {
	const op = "claim mail"
	switch {
	case lease <= 0:
		return nil, invalidArg(op, "lease %s is not positive", lease)
	case limit <= 0:
		return nil, invalidArg(op, "limit %d is not positive", limit)
	}
	now = dbTime(now)
	until := dbTime(now.Add(lease))
	lock := ""
	if s.driver == DriverPostgres {
		lock = " FOR UPDATE SKIP LOCKED"
	}
	q := `UPDATE mail_outbox SET state = 'sending', attempts = attempts + 1, lease_until = ?, next_attempt_at = ?
WHERE id IN (SELECT id FROM mail_outbox WHERE state IN ('pending', 'sending') AND next_attempt_at <= ?
ORDER BY next_attempt_at, id LIMIT ?` + lock + `)
RETURNING ` + mailOutboxColumns
	var rows []mailOutboxRow
	if err := s.conn(ctx).Raw(q, until, until, now, limit).Scan(&rows).Error; err != nil {
		return nil, wrap(op, err)
	}
	entries := make([]mail.Entry, len(rows))
	for i, r := range rows {
		entries[i] = r.entry()
	}
	// RETURNING promises no order.
	slices.SortFunc(entries, func(a, b mail.Entry) int { return cmp.Compare(a.ID, b.ID) })
	return entries, nil
}

// MarkMailSent records delivery and erases the payload. It implements mail.Outbox.
func (s *Store) MarkMailSent(ctx context.Context, id int64, at time.Time) error {
	at = dbTime(at)
	return s.updateMail(ctx, "mark mail sent", id, "", map[string]any{
		"state": string(mail.StateSent), "sent_at": at, "finished_at": at, "lease_until": nil,
		"next_attempt_at": at, "payload": nil,
	})
}

// FailMail gives an entry up and erases the payload. It implements mail.Outbox.
func (s *Store) FailMail(ctx context.Context, id int64, at time.Time, lastError string) error {
	at = dbTime(at)
	return s.updateMail(ctx, "fail mail", id, "", map[string]any{
		"state": string(mail.StateFailed), "finished_at": at, "lease_until": nil,
		"next_attempt_at": at, "payload": nil, "last_error": clipError(lastError),
	})
}

// updateMail sets columns of entry id; with a state from, only while the entry is in it.
// ErrNotFound when no entry matches.
func (s *Store) updateMail(ctx context.Context, op string, id int64, from mail.State, set map[string]any) error {
	q := s.conn(ctx).Model(&mailOutboxRow{}).Where("id = ?", id)
	if from != "" {
		q = q.Where("state = ?", string(from))
	}
	res := q.Updates(set)
	if res.Error != nil {
		return wrap(op, res.Error)
	}
	if res.RowsAffected == 0 {
		return notFoundMail(op, id)
	}
	return nil
}

// RetryMail puts a claimed entry back to pending. It implements mail.Outbox.
func (s *Store) RetryMail(ctx context.Context, id int64, next time.Time, lastError string) error {
	return s.updateMail(ctx, "retry mail", id, mail.StateSending, map[string]any{
		"state": string(mail.StatePending), "next_attempt_at": dbTime(next), "lease_until": nil,
		"last_error": clipError(lastError),
	})
}

// MailEntry returns one entry. It implements mail.Outbox.
func (s *Store) MailEntry(ctx context.Context, id int64) (mail.Entry, error) {
	var row mailOutboxRow
	if err := s.conn(ctx).Where("id = ?", id).Take(&row).Error; err != nil {
		return mail.Entry{}, wrap("get mail entry", err)
	}
	return row.entry(), nil
}

func notFoundMail(op string, id int64) error {
	return fmt.Errorf("gormstore: %s: no mail entry %d: %w", op, id, storage.ErrNotFound)
}
