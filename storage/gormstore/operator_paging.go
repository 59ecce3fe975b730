package gormstore

import (
	"context"

	"gorm.io/gorm"

	"github.com/proctorhq/proctor/storage"
)

// pageByID reads one page of a school-scoped table in id order, the order of every operator
// list whose rows carry no time of their own worth sorting by. filter narrows the query (nil:
// every row of the school).
func pageByID[R any](s *Store, ctx context.Context, op string, page storage.Page, filter func(*gorm.DB) *gorm.DB, id func(R) int64) ([]R, string, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return nil, "", err
	}
	after, err := decodeCursor(page.After)
	if err != nil {
		return nil, "", err
	}
	limit := pageSize(page)
	q := sc.in(s.conn(ctx)).Where("id > ?", after)
	if filter != nil {
		q = filter(q)
	}
	var rows []R
	if err := q.Order("id").Limit(limit + 1).Find(&rows).Error; err != nil {
		return nil, "", wrap(op, err)
	}
	rows, next := nextCursor(rows, limit, id)
	return rows, next, nil
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
