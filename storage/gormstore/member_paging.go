package gormstore

import (
	"context"
	"strconv"
	"time"

	"gorm.io/gorm"

	"github.com/proctorhq/proctor/storage"
)

// The Member API's lists are ordered by a time and then the row id (an enrollment's enrolled_at,
// a payment's created_at ...), because those times are data and need not follow the ids. Their
// cursors carry both, under a prefix of their own so that a cursor of another list's kind is
// refused rather than misread.
const timeIDCursorPrefix = "ti:"

// timeIDCursor is a position in a list ordered by (time, numeric id).
type timeIDCursor = timeKey[int64]

// encodeTimeIDCursor returns the opaque cursor of the page that follows c.
func encodeTimeIDCursor(c timeIDCursor) string {
	return encodeTimeKey(timeIDCursorPrefix, c.at, strconv.FormatInt(c.id, 10))
}

// decodeTimeIDCursor returns the position a cursor continues after; ok is false for the first
// page.
func decodeTimeIDCursor(after string) (c timeIDCursor, ok bool, err error) {
	at, key, ok, err := decodeTimeKey(timeIDCursorPrefix, after)
	if !ok || err != nil {
		return timeIDCursor{}, ok, err
	}
	id, err := strconv.ParseInt(key, 10, 64)
	if err != nil || id <= 0 {
		return timeIDCursor{}, false, errBadCursor
	}
	return timeIDCursor{at: at, id: id}, true, nil
}

// timeIDPage applies one page of a (time, id) keyset to q (see timeKeyPage) and returns it with
// the page's size.
func timeIDPage(q *gorm.DB, column, idColumn string, desc bool, page storage.Page) (*gorm.DB, int, error) {
	after, ok, err := decodeTimeIDCursor(page.After)
	if err != nil {
		return nil, 0, err
	}
	limit := pageSize(page)
	return timeKeyPage(q, column, idColumn, desc, after, ok, limit), limit, nil
}

// readTimeIDPage reads one page of a (time, id) keyset from q (see timeIDPage) and returns it with
// the next page's cursor; key gives a row's time and id, op names the list in errors. Rows of a
// table (a type with TableName) are read with Find; the rows of a join, which name no table, with
// Scan.
func readTimeIDPage[R any](q *gorm.DB, column, idColumn string, desc bool, page storage.Page, op string, key func(R) (time.Time, int64)) ([]R, string, error) {
	q, limit, err := timeIDPage(q, column, idColumn, desc, page)
	if err != nil {
		return nil, "", err
	}
	var rows []R
	if _, table := any(new(R)).(interface{ TableName() string }); table {
		err = q.Find(&rows).Error
	} else {
		err = q.Scan(&rows).Error
	}
	if err != nil {
		return nil, "", wrap(op, err)
	}
	rows, next := nextPage(rows, limit, func(r R) string {
		at, id := key(r)
		return encodeTimeIDCursor(timeIDCursor{at: at, id: id})
	})
	return rows, next, nil
}

// memberJoin describes one of the Member API's lists that reads a member's rows of a table
// joined to what they name (holdings with their products, registrations with their events,
// enrollments with their courses), oldest first.
type memberJoin[R, T any] struct {
	// table is the member's table, read as alias; the join's columns are qualified with it.
	table, alias string
	// columns are selected for R, and join names the joined table with its condition.
	columns, join string
	// at is the alias's time column the list is ordered by, then by the alias's id.
	at      string
	key     func(R) (time.Time, int64)
	convert func(R) T
}

// listMemberJoin reads one page of j for a member of the context's school, in one statement.
// Both tables are filtered by the school: the join's condition ties the joined row to the
// school too, and the explicit filter lets the member's table use its index.
func listMemberJoin[R, T any](s *Store, ctx context.Context, memberID int64, page storage.Page, op string, j memberJoin[R, T]) ([]T, string, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return nil, "", err
	}
	q := s.conn(ctx).Table(j.table+" AS "+j.alias).Select(j.columns).Joins(j.join).
		Where(j.alias+".school_id = ? AND "+j.alias+".member_id = ?", sc.schoolID, memberID)
	rows, next, err := readTimeIDPage(q, j.alias+"."+j.at, j.alias+".id", false, page, op, j.key)
	if err != nil {
		return nil, "", err
	}
	return convertRows(rows, j.convert), next, nil
}
