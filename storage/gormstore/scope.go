package gormstore

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/proctorhq/proctor/school"
)

// scope is the school a school-scoped call acts on. It is only ever built by Store.scoped, from
// the context's school, so that no method can pick a school any other way.
type scope struct {
	schoolID int64
}

// scoped returns the context's school, or school.ErrNoSchool: school data is never read or
// written without one.
func (s *Store) scoped(ctx context.Context) (scope, error) {
	t, err := school.FromContext(ctx)
	if err != nil {
		return scope{}, fmt.Errorf("gormstore: %w", err)
	}
	return scope{schoolID: t.SchoolID}, nil
}

// invalid is one check of a write's input: when bad holds, the input is refused for the reason.
type invalid struct {
	bad    bool
	reason string
}

// scopedInput is scoped for a write that checks its input first: the first check that holds is
// ErrInvalidArgument, reported with its reason.
func (s *Store) scopedInput(ctx context.Context, op string, checks ...invalid) (scope, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return scope{}, err
	}
	for _, c := range checks {
		if c.bad {
			return scope{}, invalidArg(op, "%s", c.reason)
		}
	}
	return sc, nil
}

// in restricts db's statement to the school's rows. The column is qualified with the statement's
// own table, so the condition stays unambiguous when the query joins another school-scoped table.
func (sc scope) in(db *gorm.DB) *gorm.DB {
	return db.Where(clause.Eq{
		Column: clause.Column{Table: clause.CurrentTable, Name: "school_id"},
		Value:  sc.schoolID,
	})
}

// forUpdate locks the rows a query reads until the transaction ends. PostgreSQL takes row locks;
// the SQLite dialector drops the clause, which is right there because the transaction already
// holds the database's write lock from BEGIN IMMEDIATE.
func forUpdate(db *gorm.DB) *gorm.DB {
	return db.Clauses(clause.Locking{Strength: clause.LockingStrengthUpdate})
}

// dbTime is how every time is written: UTC, at the microsecond precision PostgreSQL keeps.
func dbTime(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// dbTimePtr is dbTime for nullable columns.
func dbTimePtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	v := dbTime(*t)
	return &v
}

// utc normalises a time read back (pgx returns them in the process's local zone).
func utc(t time.Time) time.Time { return t.UTC() }

// utcPtr is utc for nullable columns.
func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	v := t.UTC()
	return &v
}

// takeScoped reads the one row of the context's school that matches the condition; op names
// the read in its errors (a missing row is storage.ErrNotFound).
func takeScoped[R any](s *Store, ctx context.Context, op, cond string, args ...any) (R, error) {
	var row R
	sc, err := s.scoped(ctx)
	if err != nil {
		return row, err
	}
	if err := sc.in(s.conn(ctx)).Where(cond, args...).Take(&row).Error; err != nil {
		return row, wrap(op, err)
	}
	return row, nil
}

// deleteScoped deletes the rows of the context's school that match the condition; op names the
// delete in its errors, and deleting none is storage.ErrNotFound.
func deleteScoped[R any](s *Store, ctx context.Context, op, cond string, args ...any) error {
	sc, err := s.scoped(ctx)
	if err != nil {
		return err
	}
	return rowsOrNotFound(op, sc.in(s.conn(ctx)).Where(cond, args...).Delete(new(R)))
}

// updateScoped sets columns of the rows of the context's school that match the condition; op
// names the update in its errors, and changing none is storage.ErrNotFound.
func updateScoped[R any](s *Store, ctx context.Context, op string, set map[string]any, cond string, args ...any) error {
	sc, err := s.scoped(ctx)
	if err != nil {
		return err
	}
	return rowsOrNotFound(op, sc.in(s.conn(ctx).Model(new(R))).Where(cond, args...).Updates(set))
}

// listScoped reads every row of the context's school that matches the condition (every row for
// an empty one), in the given order, and converts them; op names the read in its errors.
func listScoped[R, T any](s *Store, ctx context.Context, op, order string, convert func(R) T, cond string, args ...any) ([]T, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return nil, err
	}
	q := sc.in(s.conn(ctx))
	if cond != "" {
		q = q.Where(cond, args...)
	}
	var rows []R
	if err := q.Order(order).Find(&rows).Error; err != nil {
		return nil, wrap(op, err)
	}
	return convertRows(rows, convert), nil
}

// getScoped is takeScoped returning the row as its domain value, or the zero value on error.
func getScoped[R, T any](s *Store, ctx context.Context, op string, convert func(R) T, cond string, args ...any) (T, error) {
	row, err := takeScoped[R](s, ctx, op, cond, args...)
	if err != nil {
		var zero T
		return zero, err
	}
	return convert(row), nil
}

// readForIDs runs read at the context's school for some ids. With none there is nothing to read:
// the answer is empty (not nil), without a statement.
func readForIDs[T any](s *Store, ctx context.Context, ids []int64, read func(scope) ([]T, error)) ([]T, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return []T{}, nil
	}
	return read(sc)
}
