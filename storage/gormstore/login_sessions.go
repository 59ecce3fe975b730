package gormstore

import (
	"context"
	"strings"
	"time"

	"github.com/proctorhq/proctor/storage"
)

func (r loginSessionRow) session() storage.LoginSession {
	ls := storage.LoginSession{
		ID:         r.ID,
		MemberID:   r.MemberID,
		CreatedAt:  utc(r.CreatedAt),
		LastSeenAt: utc(r.LastSeenAt),
		ExpiresAt:  utc(r.ExpiresAt),
		UserAgent:  r.UserAgent,
		ClientAddr: r.ClientAddr,
		AMR:        splitAMR(r.AMR),
	}
	if r.FactorAt != nil {
		ls.FactorAt = utc(*r.FactorAt)
	}
	return ls
}

// CreateLoginSession stores a session at the context's school. A zero CreatedAt is the store's
// clock, and a zero LastSeenAt is CreatedAt (a session is seen when it starts).
func (s *Store) CreateLoginSession(ctx context.Context, ls storage.LoginSession) error {
	const op = "create login session"
	sc, err := s.scopedInput(ctx, op,
		invalid{ls.ID == "", "empty id"},
		invalid{ls.MemberID <= 0, "no member"},
		invalid{ls.ExpiresAt.IsZero(), "no expiry"})
	if err != nil {
		return err
	}
	created := s.orNow(ls.CreatedAt)
	seen := ls.LastSeenAt
	if seen.IsZero() {
		seen = created
	}
	row := loginSessionRow{
		ID:         ls.ID,
		SchoolID:   sc.schoolID,
		MemberID:   ls.MemberID,
		CreatedAt:  dbTime(created),
		LastSeenAt: dbTime(seen),
		ExpiresAt:  dbTime(ls.ExpiresAt),
		UserAgent:  ls.UserAgent,
		ClientAddr: ls.ClientAddr,
		AMR:        joinAMR(ls.AMR),
	}
	if !ls.FactorAt.IsZero() {
		at := dbTime(ls.FactorAt)
		row.FactorAt = &at
	}
	// An unknown member fails on the foreign key (ErrNotFound).
	return wrap(op, s.conn(ctx).Create(&row).Error)
}

// GetLoginSession returns a session of the context's school, expired or not (the timeouts are
// the caller's policy), with its member, joined in one statement.
func (s *Store) GetLoginSession(ctx context.Context, id string) (storage.LoginSession, storage.Member, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return storage.LoginSession{}, storage.Member{}, err
	}
	row := loginSessionRow{ID: id, SchoolID: sc.schoolID}
	var (
		m        memberRow
		factorAt textTime
		roles    *string
	)
	// The roles come space-separated from a correlated subquery: string_agg on PostgreSQL,
	// group_concat on SQLite.
	concat := "group_concat(r.role, ' ')"
	if s.driver == DriverPostgres {
		concat = "string_agg(r.role, ' ')"
	}
	err = s.conn(ctx).Raw(`SELECT s.member_id, s.created_at, s.last_seen_at, s.expires_at, s.user_agent, s.client_addr, s.amr, s.factor_at,
  m.email, m.name, m.avatar_url, m.password_hash, m.created_at, m.updated_at,
  (SELECT `+concat+` FROM member_roles r WHERE r.school_id = s.school_id AND r.member_id = s.member_id)
FROM login_sessions s JOIN members m ON m.id = s.member_id
WHERE s.school_id = ? AND s.id = ?`, sc.schoolID, id).
		Row().Scan(&row.MemberID, &row.CreatedAt, &row.LastSeenAt, &row.ExpiresAt, &row.UserAgent, &row.ClientAddr, &row.AMR, &factorAt,
		&m.Email, &m.Name, &m.AvatarURL, &m.PasswordHash, &m.CreatedAt, &m.UpdatedAt, &roles)
	if err != nil {
		return storage.LoginSession{}, storage.Member{}, wrap("get login session", err)
	}
	m.ID = row.MemberID
	if factorAt.Valid {
		row.FactorAt = &factorAt.Time
	}
	ls := row.session()
	if roles != nil {
		ls.Roles = sortRoles(strings.Fields(*roles))
	}
	return ls, m.member(), nil
}

// TouchLoginSession moves LastSeenAt forward to at, never back: two requests of one session
// finishing out of order must not shorten its idle timeout.
func (s *Store) TouchLoginSession(ctx context.Context, id string, at time.Time) error {
	sc, err := s.scoped(ctx)
	if err != nil {
		return err
	}
	const op = "touch login session"
	at = dbTime(at)
	db := s.conn(ctx)
	res := sc.in(db.Model(&loginSessionRow{})).Where("id = ? AND last_seen_at < ?", id, at).Update("last_seen_at", at)
	if res.Error != nil {
		return wrap(op, res.Error)
	}
	if res.RowsAffected == 1 {
		return nil
	}
	// Nothing moved: either the session is already seen at or after `at`, or there is none.
	return requireRow(sc.in(db.Model(&loginSessionRow{})).Where("id = ?", id), op)
}

// DeleteLoginSession deletes a session of the context's school; ErrNotFound if there was none.
func (s *Store) DeleteLoginSession(ctx context.Context, id string) error {
	return deleteScoped[loginSessionRow](s, ctx, "delete login session", "id = ?", id)
}
