package gormstore

import (
	"database/sql/driver"
	"fmt"
	"time"
)

// textTime scans a time that may arrive as the text SQLite stores rather than as a time.Time.
// PostgreSQL always sends its time type. The SQLite driver turns a value into a time.Time only
// when the column is declared DATETIME, which an aggregate (MAX) or an expression is not; it then
// hands back the stored text, read here in the layouts the driver writes.
type textTime struct {
	Time  time.Time
	Valid bool
}

var sqliteTimeLayouts = []string{
	"2006-01-02 15:04:05.999999999-07:00",
	"2006-01-02T15:04:05.999999999-07:00",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04:05.999999999Z07:00",
}

// Scan implements sql.Scanner.
func (a *textTime) Scan(v any) error {
	switch v := v.(type) {
	case nil:
		*a = textTime{}
		return nil
	case time.Time:
		*a = textTime{Time: v.UTC(), Valid: true}
		return nil
	case []byte:
		return a.Scan(string(v))
	case string:
		for _, layout := range sqliteTimeLayouts {
			if t, err := time.Parse(layout, v); err == nil {
				*a = textTime{Time: t.UTC(), Valid: true}
				return nil
			}
		}
		return fmt.Errorf("gormstore: unreadable time %q", v)
	}
	return fmt.Errorf("gormstore: cannot read %T as a time", v)
}

// Value implements driver.Valuer (gorm asks scan targets for it when it builds a model).
func (a textTime) Value() (driver.Value, error) {
	if !a.Valid {
		return nil, nil
	}
	return a.Time, nil
}

// timeAsText selects a time column for textTime where many rows carry one. Reading a DATETIME
// column, the SQLite driver first tries a layout that never matches what it writes, so every
// value costs a failed parse before the right one: read as text and parsed once here, 4000
// progress rows take half the time (BenchmarkGetLectureProgress). PostgreSQL's own time type
// needs nothing of the kind.
func (s *Store) timeAsText(column string) string {
	if s.driver == DriverSQLite {
		return "CAST(" + column + " AS TEXT)"
	}
	return column
}

// orNow is t, or the store's clock when t is zero: the times a caller may leave to the store
// (a creation time, a publication time ...).
func (s *Store) orNow(t time.Time) time.Time {
	if t.IsZero() {
		return s.now()
	}
	return t
}
