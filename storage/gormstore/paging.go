package gormstore

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/proctorhq/proctor/storage"
)

// Page sizes: storage.Page.First is clamped to [1, storage.MaxPageSize], and 0 (or less) asks
// for the default.
const defaultPageSize = 20

// Cursor prefixes version the cursor format, so that each keyset tells its own cursors from the
// others': "id:" continues after a numeric id, "at:" after a (creation time, text id) pair.
const (
	cursorPrefix     = "id:"
	timeCursorPrefix = "at:"
)

// pageSize returns how many rows a page holds.
func pageSize(p storage.Page) int {
	switch {
	case p.First <= 0:
		return defaultPageSize
	case p.First > storage.MaxPageSize:
		return storage.MaxPageSize
	}
	return p.First
}

// encodeCursor returns the opaque cursor of the page that follows the row with id.
func encodeCursor(id int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + strconv.FormatInt(id, 10)))
}

// errBadCursor is the answer to a cursor this package did not produce: the caller's input is
// malformed (it is not a page that went missing).
var errBadCursor = fmt.Errorf("gormstore: malformed page cursor: %w", storage.ErrInvalidArgument)

// decodeCursor returns the id a cursor continues after; 0 for the first page.
func decodeCursor(after string) (int64, error) {
	if after == "" {
		return 0, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(after)
	if err != nil || !strings.HasPrefix(string(raw), cursorPrefix) {
		return 0, errBadCursor
	}
	id, err := strconv.ParseInt(strings.TrimPrefix(string(raw), cursorPrefix), 10, 64)
	if err != nil || id <= 0 {
		return 0, errBadCursor
	}
	return id, nil
}

// timeKey is a position in a list ordered by a time and then a key: a text id (timeCursor) or a
// numeric one (timeIDCursor).
type timeKey[K int64 | string] struct {
	at time.Time
	id K
}

// timeCursor is a position in a list ordered by (creation time, text id), for rows whose id says
// nothing about their age (a client id).
type timeCursor = timeKey[string]

// encodeTimeCursor returns the opaque cursor of the page that follows c.
func encodeTimeCursor(c timeCursor) string {
	return encodeTimeKey(timeCursorPrefix, c.at, c.id)
}

// decodeTimeCursor returns the position a cursor continues after; ok is false for the first page.
func decodeTimeCursor(after string) (c timeCursor, ok bool, err error) {
	at, id, ok, err := decodeTimeKey(timeCursorPrefix, after)
	return timeCursor{at: at, id: id}, ok, err
}

// encodeTimeKey is the cursor of a list ordered by a time and then a key, in both keysets that
// have one (timeCursor, timeIDCursor): the prefix, the time in microseconds (the precision the
// databases store), ":" and the key.
func encodeTimeKey(prefix string, at time.Time, key string) string {
	raw := prefix + strconv.FormatInt(at.UnixMicro(), 10) + ":" + key
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

// decodeTimeKey reads a cursor of encodeTimeKey with the prefix; ok is false for the first page,
// and a cursor of another kind, or with no key, is errBadCursor.
func decodeTimeKey(prefix, after string) (at time.Time, key string, ok bool, err error) {
	if after == "" {
		return time.Time{}, "", false, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(after)
	if err != nil || !strings.HasPrefix(string(raw), prefix) {
		return time.Time{}, "", false, errBadCursor
	}
	micros, key, found := strings.Cut(strings.TrimPrefix(string(raw), prefix), ":")
	n, err := strconv.ParseInt(micros, 10, 64)
	if !found || err != nil || key == "" {
		return time.Time{}, "", false, errBadCursor
	}
	return time.UnixMicro(n).UTC(), key, true, nil
}

// timeKeyPage orders q by (column, keyColumn) in the direction desc gives and, when ok, keeps the
// rows past after in that order; it asks for one row more than the page holds (limit) so that
// nextPage can tell whether another page follows. The columns are qualified by the caller when q
// joins.
func timeKeyPage[K int64 | string](q *gorm.DB, column, keyColumn string, desc bool, after timeKey[K], ok bool, limit int) *gorm.DB {
	cmp, dir := ">", "ASC"
	if desc {
		cmp, dir = "<", "DESC"
	}
	if ok {
		at := dbTime(after.at)
		q = q.Where(fmt.Sprintf("(%[1]s %[3]s ? OR (%[1]s = ? AND %[2]s %[3]s ?))", column, keyColumn, cmp), at, at, after.id)
	}
	return q.Order(fmt.Sprintf("%s %s, %s %s", column, dir, keyColumn, dir)).Limit(limit + 1)
}

// nextPage trims rows fetched with one extra row (limit+1) to the page and returns the cursor of
// the next page, which cursor makes from the page's last row, or "" when this page is the last.
func nextPage[R any](rows []R, limit int, cursor func(R) string) ([]R, string) {
	if len(rows) <= limit {
		return rows, ""
	}
	rows = rows[:limit]
	return rows, cursor(rows[limit-1])
}
