package gormstore

import (
	"context"
	"strings"
	"time"

	"github.com/proctorhq/proctor/audit"
)

// securityEventRow is one entry of the security event log (audit.Event). ActorID and SubjectID
// are NULL rather than 0 when nobody is named: the columns are not foreign keys (the log
// outlives a removed member), and NULL keeps "nobody" distinct from any member id.
type securityEventRow struct {
	ID         int64
	SchoolID   int64
	Kind       string
	Result     string
	At         time.Time
	Actor      string
	ActorID    *int64
	SubjectID  *int64
	ClientID   string
	Scopes     string
	ClientAddr string
	UserAgent  string
	RequestID  string
	Detail     string
}

func (securityEventRow) TableName() string { return "security_events" }

// AppendSecurityEvent stores e at the context's school (audit.Store). A zero At is the store's
// clock. Inside a transaction it commits or rolls back with the rest.
func (s *Store) AppendSecurityEvent(ctx context.Context, e audit.Event) error {
	const op = "append security event"
	row, err := s.eventRow(ctx, op, e)
	if err != nil {
		return err
	}
	return wrap(op, s.conn(ctx).Create(&row).Error)
}

// eventRow checks e and returns its row at the context's school.
func (s *Store) eventRow(ctx context.Context, op string, e audit.Event) (securityEventRow, error) {
	sc, err := s.scopedInput(ctx, op,
		invalid{e.Kind == "", "no kind"},
		invalid{e.Actor == "", "no actor"},
		invalid{e.ActorID < 0 || e.SubjectID < 0, "negative member id"})
	if err != nil {
		return securityEventRow{}, err
	}
	result := e.Result
	if result == "" {
		result = audit.ResultSuccess
	}
	return securityEventRow{
		SchoolID:   sc.schoolID,
		Kind:       string(e.Kind),
		Result:     string(result),
		At:         dbTime(s.orNow(e.At)),
		Actor:      string(e.Actor),
		ActorID:    nullID(e.ActorID),
		SubjectID:  nullID(e.SubjectID),
		ClientID:   e.ClientID,
		Scopes:     strings.Join(e.Scopes, " "),
		ClientAddr: e.ClientAddr,
		UserAgent:  e.UserAgent,
		RequestID:  e.RequestID,
		Detail:     e.Detail,
	}, nil
}

// ListSecurityEvents returns the events f selects at the context's school, newest first
// (audit.Store). The page is bounded to 1..audit.MaxPage.
func (s *Store) ListSecurityEvents(ctx context.Context, f audit.Filter) ([]audit.Event, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return nil, err
	}
	q := sc.in(s.conn(ctx))
	if f.MemberID != 0 {
		q = q.Where("(subject_id = ? OR actor_id = ?)", f.MemberID, f.MemberID)
	}
	if len(f.Kinds) > 0 {
		kinds := make([]string, len(f.Kinds))
		for i, k := range f.Kinds {
			kinds[i] = string(k)
		}
		q = q.Where("kind IN ?", kinds)
	}
	if !f.Since.IsZero() {
		q = q.Where("at >= ?", dbTime(f.Since))
	}
	if !f.Until.IsZero() {
		q = q.Where("at < ?", dbTime(f.Until))
	}
	if f.BeforeID > 0 {
		q = q.Where("id < ?", f.BeforeID)
	}
	var rows []securityEventRow
	if err := q.Order("id DESC").Limit(min(max(f.Limit, 1), audit.MaxPage)).Find(&rows).Error; err != nil {
		return nil, wrap("list security events", err)
	}
	out := make([]audit.Event, len(rows))
	for i, r := range rows {
		out[i] = audit.Event{
			ID:         r.ID,
			SchoolID:   r.SchoolID,
			Kind:       audit.Kind(r.Kind),
			Result:     audit.Result(r.Result),
			At:         utc(r.At),
			Actor:      audit.Actor(r.Actor),
			ActorID:    idOf(r.ActorID),
			SubjectID:  idOf(r.SubjectID),
			ClientID:   r.ClientID,
			Scopes:     strings.Fields(r.Scopes),
			ClientAddr: r.ClientAddr,
			UserAgent:  r.UserAgent,
			RequestID:  r.RequestID,
			Detail:     r.Detail,
		}
	}
	return out, nil
}

// PurgeSecurityEvents deletes, across every school, at most batch events recorded before
// `before` and returns how many (audit.Purger). Like PurgeExpired it is the background job's,
// deliberately not school-scoped, one bounded statement outside any transaction.
func (s *Store) PurgeSecurityEvents(ctx context.Context, before time.Time, batch int) (int, error) {
	const op = "purge security events"
	if batch <= 0 {
		return 0, invalidArg(op, "batch %d is not positive", batch)
	}
	res := s.conn(ctx).Exec("DELETE FROM security_events WHERE id IN (SELECT id FROM security_events WHERE at < ? LIMIT ?)", dbTime(before), batch)
	if res.Error != nil {
		return 0, wrap(op, res.Error)
	}
	return int(res.RowsAffected), nil
}

// nullID is id, or NULL for 0 (nobody).
func nullID(id int64) *int64 {
	if id == 0 {
		return nil
	}
	return &id
}

// idOf is the id of a nullable member column, 0 for NULL.
func idOf(id *int64) int64 {
	if id == nil {
		return 0
	}
	return *id
}
