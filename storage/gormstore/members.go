package gormstore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/proctorhq/proctor/storage"
)

func (r memberRow) member() storage.Member {
	return storage.Member{
		ID:           r.ID,
		Email:        r.Email,
		Name:         r.Name,
		AvatarURL:    r.AvatarURL,
		PasswordHash: r.PasswordHash,
		CreatedAt:    utc(r.CreatedAt),
		UpdatedAt:    utc(r.UpdatedAt),
	}
}

// CreateMember stores a new member.
func (s *Store) CreateMember(ctx context.Context, m storage.Member) (storage.Member, error) {
	row := memberRow{
		Email:        storage.NormaliseEmail(m.Email),
		Name:         m.Name,
		AvatarURL:    m.AvatarURL,
		PasswordHash: m.PasswordHash,
	}
	if row.Email == "" {
		return storage.Member{}, fmt.Errorf("gormstore: create member: the e-mail is empty: %w", storage.ErrInvalidArgument)
	}
	row.stamp(dbTime(s.now()), true)
	if err := s.conn(ctx).Create(&row).Error; err != nil {
		return storage.Member{}, wrap("create member", err)
	}
	return row.member(), nil
}

// GetMember returns a member by id.
func (s *Store) GetMember(ctx context.Context, id int64) (storage.Member, error) {
	// A fixed statement scanned straight into the row: UserInfo and the consent page read the
	// member on every request, and gorm's query building and reflection cost more than the read.
	row := memberRow{ID: id}
	err := s.conn(ctx).Raw("SELECT email, name, avatar_url, password_hash, created_at, updated_at FROM members WHERE id = ?", id).
		Row().Scan(&row.Email, &row.Name, &row.AvatarURL, &row.PasswordHash, &row.CreatedAt, &row.UpdatedAt)
	if err != nil {
		return storage.Member{}, wrap(fmt.Sprintf("get member %d", id), err)
	}
	return row.member(), nil
}

// GetMemberByEmail returns a member by e-mail, compared case-insensitively.
func (s *Store) GetMemberByEmail(ctx context.Context, email string) (storage.Member, error) {
	var row memberRow
	if err := s.conn(ctx).Where("email = ?", storage.NormaliseEmail(email)).Take(&row).Error; err != nil {
		return storage.Member{}, wrap("get member by e-mail", err)
	}
	return row.member(), nil
}

// UpdateMember applies fn to the member while its row is locked. fn must not call the store: the
// transaction waits for fn, and on SQLite a write from fn would wait for the transaction.
func (s *Store) UpdateMember(ctx context.Context, id int64, fn func(storage.Member) (storage.Member, error)) (storage.Member, error) {
	op := fmt.Sprintf("update member %d", id)
	var out storage.Member
	err := s.inTx(ctx, op, func(tx *gorm.DB) error {
		var row memberRow
		if err := forUpdate(tx).Where("id = ?", id).Take(&row).Error; err != nil {
			return wrap(op, err)
		}
		m, err := fn(row.member())
		if err != nil {
			return err
		}
		next := memberRow{
			ID:           row.ID,
			Email:        storage.NormaliseEmail(m.Email),
			Name:         m.Name,
			AvatarURL:    m.AvatarURL,
			PasswordHash: m.PasswordHash,
			CreatedAt:    row.CreatedAt,
		}
		if next.Email == "" {
			return fmt.Errorf("gormstore: %s: the e-mail is empty: %w", op, storage.ErrInvalidArgument)
		}
		next.stamp(dbTime(s.now()), false)
		if err := tx.Select("*").Omit("id").Where("id = ?", id).Updates(&next).Error; err != nil {
			return wrap(op, err)
		}
		out = next.member()
		return nil
	})
	return out, err
}

// SetRoles replaces the member's roles at the context's school.
func (s *Store) SetRoles(ctx context.Context, memberID int64, roles []storage.Role) error {
	return s.changeRoles(ctx, memberID, roles, func(tx *gorm.DB, sc scope, op string) error {
		// Checked explicitly so that an empty list for an unknown member is ErrNotFound too.
		if err := requireRow(tx.Model(&memberRow{}).Where("id = ?", memberID), op); err != nil {
			return err
		}
		return wrap(op, replaceRoles(tx, sc, memberID, roles, dbTime(s.now())))
	})
}

// changeRoles is the frame of both writes of a member's roles at the context's school (SetRoles,
// SetSchoolRoles): it refuses unknown roles, and runs change in a transaction once it holds the
// member's roles lock. op names the write in errors.
func (s *Store) changeRoles(ctx context.Context, memberID int64, roles []storage.Role, change func(tx *gorm.DB, sc scope, op string) error) error {
	sc, err := s.scoped(ctx)
	if err != nil {
		return err
	}
	op := fmt.Sprintf("set roles of member %d", memberID)
	if err := knownRoles(roles); err != nil {
		return fmt.Errorf("gormstore: %s: %w", op, err)
	}
	return s.inTx(ctx, op, func(tx *gorm.DB) error {
		if err := lockRoles(tx, memberID); err != nil {
			return wrap(op, err)
		}
		return change(tx, sc, op)
	})
}

// lockRoles takes the lock that orders the changes of a member's roles: every write of them
// (changeRoles) takes it first, and so does a read of them inside a caller's
// transaction (GetRoles), so that a decision made on the roles read there cannot be overtaken by
// another change before the transaction ends. The lock is on the member's row, which exists for
// as long as they hold roles, whereas their role rows come and go with the change itself. On
// PostgreSQL it is FOR NO KEY UPDATE, which still lets rows that refer to the member be written;
// SQLite transactions already hold the database's write lock from BEGIN IMMEDIATE.
func lockRoles(tx *gorm.DB, memberID int64) error {
	var ids []int64
	return tx.Model(&memberRow{}).Clauses(clause.Locking{Strength: "NO KEY UPDATE"}).
		Where("id = ?", memberID).Pluck("id", &ids).Error
}

// knownRoles refuses a role the store does not know (ErrInvalidArgument), for every write of
// roles: SetRoles, SetSchoolRoles and the import.
func knownRoles(roles []storage.Role) error {
	for _, r := range roles {
		if !r.Valid() {
			return fmt.Errorf("unknown role %q: %w", r, storage.ErrInvalidArgument)
		}
	}
	return nil
}

// replaceRoles makes the member's roles at the school exactly roles, touching only the rows that
// change (so a role's created_at survives a replace that keeps it).
func replaceRoles(tx *gorm.DB, sc scope, memberID int64, roles []storage.Role, now time.Time) error {
	var have []memberRoleRow
	if err := sc.in(tx).Where("member_id = ?", memberID).Find(&have).Error; err != nil {
		return err
	}
	want := map[string]bool{}
	for _, r := range roles {
		want[string(r)] = true
	}
	var drop []string
	for _, h := range have {
		if want[h.Role] {
			delete(want, h.Role)
		} else {
			drop = append(drop, h.Role)
		}
	}
	if len(drop) > 0 {
		if err := sc.in(tx).Where("member_id = ? AND role IN ?", memberID, drop).Delete(&memberRoleRow{}).Error; err != nil {
			return err
		}
	}
	if len(want) == 0 {
		return nil
	}
	add := make([]memberRoleRow, 0, len(want))
	for _, r := range storage.Roles {
		if want[string(r)] {
			add = append(add, memberRoleRow{SchoolID: sc.schoolID, MemberID: memberID, Role: string(r), CreatedAt: now})
		}
	}
	return tx.Create(&add).Error
}

// GetRoles returns the member's roles at the context's school, most powerful first.
func (s *Store) GetRoles(ctx context.Context, memberID int64) ([]storage.Role, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return nil, err
	}
	// A fixed statement, as GetMember's: the operator API reads the caller's roles on every
	// request.
	op := fmt.Sprintf("get roles of member %d", memberID)
	if tx := s.txFrom(ctx); tx != nil {
		if err := lockRoles(tx.db.WithContext(ctx), memberID); err != nil {
			return nil, wrap(op, err)
		}
	}
	rows, err := s.conn(ctx).Raw("SELECT role FROM member_roles WHERE school_id = ? AND member_id = ?", sc.schoolID, memberID).Rows()
	if err != nil {
		return nil, wrap(op, err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, wrap(op, err)
		}
		names = append(names, n)
	}
	if err := rows.Err(); err != nil {
		return nil, wrap(op, err)
	}
	return sortRoles(names), nil
}

// sortRoles orders roles most powerful first, as storage.Roles lists them.
func sortRoles(names []string) []storage.Role {
	roles := make([]storage.Role, 0, len(names))
	for _, n := range names {
		roles = append(roles, storage.Role(n))
	}
	rank := func(r storage.Role) int {
		if i := slices.Index(storage.Roles, r); i >= 0 {
			return i
		}
		return len(storage.Roles)
	}
	slices.SortFunc(roles, func(a, b storage.Role) int {
		if d := rank(a) - rank(b); d != 0 {
			return d
		}
		return strings.Compare(string(a), string(b))
	})
	return roles
}

// memberIDsOf returns the ids of rows, in order.
func memberIDsOf(rows []memberRow) []int64 {
	ids := make([]int64, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	return ids
}

// schoolRolesOf returns the roles the members hold at the school, by member id, in one statement.
func schoolRolesOf(db *gorm.DB, sc scope, ids []int64) (map[int64][]string, error) {
	var rows []memberRoleRow
	if err := sc.in(db).Where("member_id IN ?", ids).Find(&rows).Error; err != nil {
		return nil, err
	}
	roles := map[int64][]string{}
	for _, r := range rows {
		roles[r.MemberID] = append(roles[r.MemberID], r.Role)
	}
	return roles, nil
}

// roleHolders is one page, by id, of the members who hold a role at the context's school, with
// every role they hold there (by member id).
type roleHolders struct {
	sc      scope
	members []memberRow
	roles   map[int64][]string
	next    string
}

// roleHolderPage reads a page of roleHolders in two statements, one when the page is empty; a
// non-empty only keeps the holders of that role.
func (s *Store) roleHolderPage(ctx context.Context, page storage.Page, op string, only storage.Role) (roleHolders, error) {
	p, err := s.startIDPage(ctx, page)
	if err != nil {
		return roleHolders{}, err
	}
	db := s.conn(ctx)
	holders := p.sc.in(db.Model(&memberRoleRow{})).Select("member_id")
	if only != "" {
		holders = holders.Where("role = ?", string(only))
	}
	h := roleHolders{sc: p.sc, roles: map[int64][]string{}}
	h.members, h.next, err = findIDPage(db.Where("id IN (?) AND id > ?", holders, p.after), p, op, func(r memberRow) int64 { return r.ID })
	if err != nil || len(h.members) == 0 {
		return h, err
	}
	if h.roles, err = schoolRolesOf(db, p.sc, memberIDsOf(h.members)); err != nil {
		return roleHolders{}, wrap(op, err)
	}
	return h, nil
}

// ListSchoolMembers lists the members holding a role at the context's school, by id.
func (s *Store) ListSchoolMembers(ctx context.Context, page storage.Page) ([]storage.MemberRoles, string, error) {
	h, err := s.roleHolderPage(ctx, page, "list school members", "")
	if err != nil {
		return nil, "", err
	}
	out := make([]storage.MemberRoles, len(h.members))
	for i, r := range h.members {
		out[i] = storage.MemberRoles{Member: r.member(), Roles: sortRoles(h.roles[r.ID])}
	}
	return out, h.next, nil
}

// ListMemberSchools returns every school where the member holds a role, by school id.
func (s *Store) ListMemberSchools(ctx context.Context, memberID int64) ([]storage.SchoolRoles, error) {
	var rows []struct {
		SchoolID  int64
		Subdomain string
		Name      string
		Role      string
	}
	err := s.conn(ctx).Table("member_roles AS r").
		Select("r.school_id, s.subdomain, s.name, r.role").
		Joins("JOIN schools AS s ON s.id = r.school_id").
		Where("r.member_id = ?", memberID).
		Order("r.school_id").
		Scan(&rows).Error
	if err != nil {
		return nil, wrap(fmt.Sprintf("list schools of member %d", memberID), err)
	}
	out := []storage.SchoolRoles{}
	var names []string
	flush := func() {
		if len(out) > 0 {
			out[len(out)-1].Roles = sortRoles(names)
		}
		names = nil
	}
	for _, r := range rows {
		if len(out) == 0 || out[len(out)-1].SchoolID != r.SchoolID {
			flush()
			out = append(out, storage.SchoolRoles{SchoolID: r.SchoolID, Subdomain: r.Subdomain, Name: r.Name})
		}
		names = append(names, r.Role)
	}
	flush()
	return out, nil
}
