package gormstore

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/proctorhq/proctor/storage"
)

// SyncSchool inserts the school row for id, or updates its subdomain and name when they changed,
// leaving settings and appearance (the operators' edits) alone.
func (s *Store) SyncSchool(ctx context.Context, id int64, subdomain, name string) error {
	if id <= 0 || subdomain == "" {
		return fmt.Errorf("gormstore: sync school: the id must be positive and the subdomain set: %w", storage.ErrInvalidArgument)
	}
	now := dbTime(s.now())
	// The WHERE keeps updated_at still when nothing changed: this runs at every start-up.
	err := s.conn(ctx).Exec(`INSERT INTO schools (id, subdomain, name, settings, appearance, created_at, updated_at)
VALUES (?, ?, ?, '{}', '{}', ?, ?)
ON CONFLICT (id) DO UPDATE SET subdomain = excluded.subdomain, name = excluded.name, updated_at = excluded.updated_at
WHERE schools.subdomain <> excluded.subdomain OR schools.name <> excluded.name`,
		id, subdomain, name, now, now).Error
	return wrap(fmt.Sprintf("sync school %d", id), err)
}

// GetSchool returns the context's school.
func (s *Store) GetSchool(ctx context.Context) (storage.School, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return storage.School{}, err
	}
	var row schoolRow
	if err := s.conn(ctx).Where("id = ?", sc.schoolID).Take(&row).Error; err != nil {
		return storage.School{}, wrap(fmt.Sprintf("get school %d", sc.schoolID), err)
	}
	return row.school()
}

func (r schoolRow) school() (storage.School, error) {
	sch := storage.School{ID: r.ID, Subdomain: r.Subdomain, Name: r.Name, UpdatedAt: utc(r.UpdatedAt)}
	if err := json.Unmarshal([]byte(r.Settings), &sch.Settings); err != nil {
		return storage.School{}, fmt.Errorf("gormstore: school %d: settings: %w", r.ID, err)
	}
	if err := json.Unmarshal([]byte(r.Appearance), &sch.Appearance); err != nil {
		return storage.School{}, fmt.Errorf("gormstore: school %d: appearance: %w", r.ID, err)
	}
	return sch, nil
}
