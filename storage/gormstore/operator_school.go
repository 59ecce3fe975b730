package gormstore

import (
	"context"
	"fmt"

	"gorm.io/gorm"

	"github.com/proctorhq/proctor/storage"
)

// UpdateSchool applies fn to the school's settings and appearance while its row is locked. The
// identity columns (subdomain, name) belong to the school file and are never written here.
func (s *Store) UpdateSchool(ctx context.Context, fn func(storage.School) (storage.School, error)) (storage.School, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return storage.School{}, err
	}
	op := fmt.Sprintf("update school %d", sc.schoolID)
	var out storage.School
	err = s.inTx(ctx, op, func(tx *gorm.DB) error {
		var row schoolRow
		if err := forUpdate(tx).Where("id = ?", sc.schoolID).Take(&row).Error; err != nil {
			return wrap(op, err)
		}
		cur, err := row.school()
		if err != nil {
			return fmt.Errorf("gormstore: %s: %w", op, err)
		}
		next, err := fn(cur)
		if err != nil {
			return err
		}
		settings, err := jsonText(next.Settings)
		if err != nil {
			return fmt.Errorf("gormstore: %s: %w", op, err)
		}
		appearance, err := jsonText(next.Appearance)
		if err != nil {
			return fmt.Errorf("gormstore: %s: %w", op, err)
		}
		row.Settings, row.Appearance, row.UpdatedAt = settings, appearance, dbTime(s.now())
		err = tx.Model(&schoolRow{}).Where("id = ?", sc.schoolID).
			Updates(map[string]any{"settings": row.Settings, "appearance": row.Appearance, "updated_at": row.UpdatedAt}).Error
		if err != nil {
			return wrap(op, err)
		}
		out, err = row.school()
		return err
	})
	return out, err
}
