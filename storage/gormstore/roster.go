package gormstore

import (
	"context"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/proctorhq/proctor/account/accountstore"
	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/roster"
	"github.com/proctorhq/proctor/storage"
)

var _ roster.Store = (*Store)(nil)

// ListRoster pages through the school's members by id, narrowed by the search (its wildcards escaped as SearchCourses escapes them), then reads the
// page's roles, invitations and sign-ins in one statement each.
func (s *Store) ListRoster(ctx context.Context, q roster.Query, at time.Time) ([]roster.Entry, string, error) {
	p, err := s.startIDPage(ctx, q.Page)
	if err != nil {
		return nil, "", err
	}
	const op = "list roster"
	if err := roster.CheckSearch(q.Search); err != nil {
		return nil, "", invalidArg(op, "%v", err)
	}
	db := s.conn(ctx)
	holders := p.sc.in(db.Model(&memberRoleRow{})).Select("member_id")
	query := db.Where("id IN (?) AND id > ?", holders, p.after)
	if search := strings.TrimSpace(q.Search); search != "" {
		pattern := containsPattern(search)
		query = query.Where(`(LOWER(email) LIKE ? ESCAPE '\' OR LOWER(name) LIKE ? ESCAPE '\')`, pattern, pattern)
	}
	rows, next, err := findIDPage(query, p, op, func(r memberRow) int64 { return r.ID })
	if err != nil {
		return nil, "", err
	}
	out, err := s.rosterEntries(ctx, p.sc, rows, at)
	if err != nil {
		return nil, "", wrap(op, err)
	}
	return out, next, nil
}

// GetRosterEntry returns one member of the school.
func (s *Store) GetRosterEntry(ctx context.Context, memberID int64, at time.Time) (roster.Entry, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return roster.Entry{}, err
	}
	op := fmt.Sprintf("get roster entry of member %d", memberID)
	db := s.conn(ctx)
	holders := sc.in(db.Model(&memberRoleRow{})).Select("member_id")
	var rows []memberRow
	if err := db.Where("id IN (?) AND id = ?", holders, memberID).Find(&rows).Error; err != nil {
		return roster.Entry{}, wrap(op, err)
	}
	if len(rows) == 0 {
		return roster.Entry{}, fmt.Errorf("gormstore: %s: %w", op, storage.ErrNotFound)
	}
	out, err := s.rosterEntries(ctx, sc, rows, at)
	if err != nil {
		return roster.Entry{}, wrap(op, err)
	}
	return out[0], nil
}

// rosterEntries completes the members' rows with what the school knows of them.
func (s *Store) rosterEntries(ctx context.Context, sc scope, rows []memberRow, at time.Time) ([]roster.Entry, error) {
	out := make([]roster.Entry, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	db := s.conn(ctx)
	ids := memberIDsOf(rows)
	roles, err := schoolRolesOf(db, sc, ids)
	if err != nil {
		return nil, err
	}
	// latest is, per member, the greatest column of model's rows where: memberColumn names the
	// member.
	latest := func(model any, memberColumn, column, where string, args ...any) (map[int64]time.Time, error) {
		var found []struct {
			MemberID int64
			Last     textTime
		}
		q := sc.in(db.Model(model)).Select(memberColumn+" AS member_id, MAX("+column+") AS last").Where(where, args...)
		if err := q.Group(memberColumn).Scan(&found).Error; err != nil {
			return nil, err
		}
		m := make(map[int64]time.Time, len(found))
		for _, f := range found {
			if f.Last.Valid {
				m[f.MemberID] = f.Last.Time
			}
		}
		return m, nil
	}
	invited, err := latest(&accountLinkRow{}, "member_id", "expires_at", "member_id IN ? AND purpose = ? AND used_at IS NULL AND expires_at > ?",
		ids, string(accountstore.PurposeInvitation), dbTime(at))
	if err != nil {
		return nil, err
	}
	signedIn, err := latest(&securityEventRow{}, "subject_id", "at", "kind = ? AND result = ? AND subject_id IN ?",
		string(audit.KindSignIn), string(audit.ResultSuccess), ids)
	if err != nil {
		return nil, err
	}
	sessions, err := latest(&loginSessionRow{}, "member_id", "created_at", "member_id IN ?", ids)
	if err != nil {
		return nil, err
	}
	for i, r := range rows {
		m := r.member()
		e := roster.Entry{Roles: sortRoles(roles[r.ID]), HasPassword: m.PasswordHash != "", InvitationExpiresAt: invited[r.ID]}
		m.PasswordHash = ""
		e.Member = m
		e.LastSignInAt = signedIn[r.ID]
		if t := sessions[r.ID]; t.After(e.LastSignInAt) {
			e.LastSignInAt = t
		}
		out[i] = e
	}
	return out, nil
}

// RevokeSchoolGrants revokes every pair (and unused code) of the member at the context's
// school, locking as RevokeConnectedApp does.
func (s *Store) RevokeSchoolGrants(ctx context.Context, memberID int64, at time.Time) (int, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return 0, err
	}
	return s.revokeMemberPairs(ctx, "revoke school grants", memberID, func(q *gorm.DB) *gorm.DB { return sc.in(q) }, at)
}
