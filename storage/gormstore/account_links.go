package gormstore

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/proctorhq/proctor/account/accountstore"
)

// The account tables (migration 007) implement account.Store. It is declared in the leaf
// package accountstore, which the store can import without a cycle through account's own
// imports.
var _ accountstore.Store = (*Store)(nil)

func (r accountLinkRow) link() accountstore.Link {
	l := accountstore.Link{
		ID:            r.ID,
		SchoolID:      r.SchoolID,
		MemberID:      r.MemberID,
		Purpose:       accountstore.Purpose(r.Purpose),
		Email:         r.Email,
		PasswordStamp: r.PasswordStamp,
		CreatedAt:     utc(r.CreatedAt),
		ExpiresAt:     utc(r.ExpiresAt),
	}
	if r.UsedAt != nil {
		l.UsedAt = utc(*r.UsedAt)
	}
	return l
}

// CreateLink stores l at the context's school and, in the same transaction, deletes the
// member's other unused links of its purpose there. A zero CreatedAt is the store's clock.
func (s *Store) CreateLink(ctx context.Context, l accountstore.Link) error {
	const op = "create link"
	sc, err := s.scopedInput(ctx, op,
		invalid{l.ID == "", "empty id"},
		invalid{l.MemberID <= 0, "no member"},
		invalid{l.Purpose == "", "no purpose"},
		invalid{l.ExpiresAt.IsZero(), "no expiry"},
		invalid{!l.UsedAt.IsZero(), "a new link is unused"})
	if err != nil {
		return err
	}
	created := s.orNow(l.CreatedAt)
	row := accountLinkRow{
		ID:            l.ID,
		SchoolID:      sc.schoolID,
		MemberID:      l.MemberID,
		Purpose:       string(l.Purpose),
		Email:         l.Email,
		PasswordStamp: l.PasswordStamp,
		CreatedAt:     dbTime(created),
		ExpiresAt:     dbTime(l.ExpiresAt),
	}
	return s.inTx(ctx, op, func(tx *gorm.DB) error {
		// The link's own id is spared, so that storing an id twice fails on the primary key
		// (ErrAlreadyExists) instead of replacing the first.
		err := sc.in(tx).Where("member_id = ? AND purpose = ? AND used_at IS NULL AND id <> ?",
			l.MemberID, string(l.Purpose), l.ID).Delete(&accountLinkRow{}).Error
		if err != nil {
			return wrap(op+": delete earlier links", err)
		}
		// An unknown member fails on the foreign key (ErrNotFound).
		return wrap(op, tx.Create(&row).Error)
	})
}

// GetLink returns the unused, unexpired link of id and purpose at the context's school.
func (s *Store) GetLink(ctx context.Context, id string, purpose accountstore.Purpose, at time.Time) (accountstore.Link, error) {
	return getScoped(s, ctx, "get link", accountLinkRow.link,
		"id = ? AND purpose = ? AND used_at IS NULL AND expires_at > ?", id, string(purpose), dbTime(at))
}

// ConsumeLink marks the link used and returns it. The UPDATE's condition on used_at decides
// between concurrent consumers: on PostgreSQL the second waits for the first's row lock and
// re-checks the condition, on SQLite writers are serialised; either way it changes nothing and
// gets ErrNotFound. RETURNING reads the row back in the same statement (SQLite has it since
// 3.35), so the winner gets the link as it consumed it.
func (s *Store) ConsumeLink(ctx context.Context, id string, purpose accountstore.Purpose, at time.Time) (accountstore.Link, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return accountstore.Link{}, err
	}
	at = dbTime(at)
	row := accountLinkRow{ID: id, SchoolID: sc.schoolID, Purpose: string(purpose)}
	// textTime: on SQLite, RETURNING may hand back the stored text rather than a time.
	var created, expires, used textTime
	err = s.conn(ctx).Raw(`UPDATE account_links SET used_at = ?
WHERE id = ? AND school_id = ? AND purpose = ? AND used_at IS NULL AND expires_at > ?
RETURNING member_id, email, password_stamp, created_at, expires_at, used_at`,
		at, id, sc.schoolID, string(purpose), at).
		Row().Scan(&row.MemberID, &row.Email, &row.PasswordStamp, &created, &expires, &used)
	if err != nil {
		// No row (sql.ErrNoRows) is ErrNotFound: unknown, used, expired or of another school.
		return accountstore.Link{}, wrap("consume link", err)
	}
	row.CreatedAt, row.ExpiresAt = created.Time, expires.Time
	row.UsedAt = &used.Time
	return row.link(), nil
}

// DeleteMemberLinks deletes the member's unused links of purpose at every school. It is
// deployment-wide, so it needs no school.
func (s *Store) DeleteMemberLinks(ctx context.Context, memberID int64, purpose accountstore.Purpose) error {
	err := s.conn(ctx).Where("member_id = ? AND purpose = ? AND used_at IS NULL", memberID, string(purpose)).
		Delete(&accountLinkRow{}).Error
	return wrap(fmt.Sprintf("delete links of member %d", memberID), err)
}

// ListMemberSessions returns the member's unexpired sessions at the context's school, most
// recently seen first (then by id, so that the order is stable).
func (s *Store) ListMemberSessions(ctx context.Context, memberID int64, at time.Time) ([]accountstore.SessionInfo, error) {
	return listScoped(s, ctx, "list member sessions", "last_seen_at DESC, id", func(r loginSessionRow) accountstore.SessionInfo {
		return accountstore.SessionInfo{
			ID:         r.ID,
			CreatedAt:  utc(r.CreatedAt),
			LastSeenAt: utc(r.LastSeenAt),
			ExpiresAt:  utc(r.ExpiresAt),
			UserAgent:  r.UserAgent,
			ClientAddr: r.ClientAddr,
		}
	}, "member_id = ? AND expires_at > ?", memberID, dbTime(at))
}

// DeleteMemberSession deletes one session of the member at the context's school; ErrNotFound
// if there is none of that id that is theirs there.
func (s *Store) DeleteMemberSession(ctx context.Context, memberID int64, id string) error {
	return deleteScoped[loginSessionRow](s, ctx, "delete member session", "id = ? AND member_id = ?", id, memberID)
}

// DeleteOtherSessions deletes the member's sessions but keep, at the context's school or, with
// everywhere, at every school (then no school is needed).
func (s *Store) DeleteOtherSessions(ctx context.Context, memberID int64, keep string, everywhere bool) (int, error) {
	q := s.conn(ctx)
	if !everywhere {
		sc, err := s.scoped(ctx)
		if err != nil {
			return 0, err
		}
		q = sc.in(q)
	}
	q = q.Where("member_id = ?", memberID)
	if keep != "" {
		q = q.Where("id <> ?", keep)
	}
	res := q.Delete(&loginSessionRow{})
	if res.Error != nil {
		return 0, wrap("delete other sessions", res.Error)
	}
	return int(res.RowsAffected), nil
}
