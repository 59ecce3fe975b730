package gormstore

import (
	"context"
	"fmt"

	"gorm.io/gorm"

	"github.com/proctorhq/proctor/storage"
)

// idPage is where one page of an id-ordered list starts: the school the context names, the id the
// cursor continues after, and how many rows the page holds.
type idPage struct {
	sc    scope
	after int64
	limit int
}

// startIDPage resolves the school and the cursor of one page of an id-ordered list.
func (s *Store) startIDPage(ctx context.Context, page storage.Page) (idPage, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return idPage{}, err
	}
	after, err := decodeCursor(page.After)
	if err != nil {
		return idPage{}, err
	}
	return idPage{sc: sc, after: after, limit: pageSize(page)}, nil
}

// findIDPage reads the page from q, which holds the list's conditions and its "id > after": in id
// order, one row more than the page so that the next page's cursor is "" when none follows. op
// names the list in errors.
func findIDPage[R any](q *gorm.DB, p idPage, op string, id func(R) int64) ([]R, string, error) {
	var rows []R
	if err := q.Order("id").Limit(p.limit + 1).Find(&rows).Error; err != nil {
		return nil, "", wrap(op, err)
	}
	rows, next := nextPage(rows, p.limit, func(r R) string { return encodeCursor(id(r)) })
	return rows, next, nil
}

// pageByID reads one page of a school-scoped table in id order, the order of every operator
// list whose rows carry no time of their own worth sorting by. filter narrows the query (nil:
// every row of the school).
func pageByID[R any](s *Store, ctx context.Context, op string, page storage.Page, filter func(*gorm.DB) *gorm.DB, id func(R) int64) ([]R, string, error) {
	p, err := s.startIDPage(ctx, page)
	if err != nil {
		return nil, "", err
	}
	q := p.sc.in(s.conn(ctx)).Where("id > ?", p.after)
	if filter != nil {
		q = filter(q)
	}
	return findIDPage(q, p, op, id)
}

// listByID is pageByID with the page's rows converted to their domain type.
func listByID[R, T any](s *Store, ctx context.Context, op string, page storage.Page, filter func(*gorm.DB) *gorm.DB, id func(R) int64, conv func(R) T) ([]T, string, error) {
	rows, next, err := pageByID(s, ctx, op, page, filter, id)
	if err != nil {
		return nil, "", err
	}
	return convertRows(rows, conv), next, nil
}

// createRow stores a new school row and returns it as its domain type, id filled in. op names the
// creation in errors; keyName and key are the row's natural key (a slug, a code), which must be
// set; check, if not nil, refuses other invalid values with the reason; build makes the row for
// the school.
func createRow[R, T any](s *Store, ctx context.Context, op, keyName, key string, check func() error, build func(schoolID int64) R, conv func(R) T) (T, error) {
	var zero T
	sc, err := s.scoped(ctx)
	if err != nil {
		return zero, err
	}
	if err := required(keyName, key); err != nil {
		return zero, fmt.Errorf("gormstore: %s: %w", op, err)
	}
	if check != nil {
		if err := check(); err != nil {
			return zero, fmt.Errorf("gormstore: %s: %w", op, err)
		}
	}
	row := build(sc.schoolID)
	if err := s.conn(ctx).Create(&row).Error; err != nil {
		return zero, wrap(op, err)
	}
	return conv(row), nil
}

// convertRows maps rows to domain values, never returning nil (an empty page is an empty list).
func convertRows[R, T any](rows []R, f func(R) T) []T {
	out := make([]T, len(rows))
	for i, r := range rows {
		out[i] = f(r)
	}
	return out
}

var _ storage.OperatorData = (*Store)(nil)
