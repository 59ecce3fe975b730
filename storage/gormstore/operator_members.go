package gormstore

import (
	"context"
	"fmt"

	"gorm.io/gorm"

	"github.com/proctorhq/proctor/storage"
)

// SetSchoolRoles replaces the roles of a member of the school, refusing to leave it without an
// owner. The check runs after the change inside the same transaction, so two operators demoting
// the last two owners at once cannot both succeed: on PostgreSQL the owners' role rows are
// locked first, and SQLite transactions are serialised from BEGIN.
func (s *Store) SetSchoolRoles(ctx context.Context, memberID int64, roles []storage.Role) ([]storage.Role, error) {
	var out []storage.Role
	err := s.changeRoles(ctx, memberID, roles, func(tx *gorm.DB, sc scope, op string) error {
		// The owners' lock after the member's, in the order GetRoles in a transaction takes them.
		var owners []memberRoleRow
		if err := forUpdate(sc.in(tx)).Where("role = ?", storage.RoleOwner).Find(&owners).Error; err != nil {
			return wrap(op, err)
		}
		if err := requireRow(sc.in(tx.Model(&memberRoleRow{})).Where("member_id = ?", memberID), op); err != nil {
			return err
		}
		if err := replaceRoles(tx, sc, memberID, roles, dbTime(s.now())); err != nil {
			return wrap(op, err)
		}
		var left int64
		if err := sc.in(tx.Model(&memberRoleRow{})).Where("role = ?", storage.RoleOwner).Count(&left).Error; err != nil {
			return wrap(op, err)
		}
		// A school that had no owner (a fresh import) is not made to need one by this change.
		if left == 0 && len(owners) > 0 {
			return fmt.Errorf("gormstore: %s: %w", op, storage.ErrLastOwner)
		}
		var names []string
		if err := sc.in(tx.Model(&memberRoleRow{})).Where("member_id = ?", memberID).Pluck("role", &names).Error; err != nil {
			return wrap(op, err)
		}
		out = sortRoles(names)
		return nil
	})
	return out, err
}
