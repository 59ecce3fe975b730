package gormstore

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	"github.com/proctorhq/proctor/storage"
)

// Page sizes: storage.Page.First is clamped to [1, maxPageSize], and 0 (or less) asks for the
// default.
const (
	defaultPageSize = 20
	maxPageSize     = 100
)

// cursorPrefix versions the cursor format, so that a later keyset (say, by date) can tell its own
// cursors from these.
const cursorPrefix = "id:"

// pageSize returns how many rows a page holds.
func pageSize(p storage.Page) int {
	switch {
	case p.First <= 0:
		return defaultPageSize
	case p.First > maxPageSize:
		return maxPageSize
	}
	return p.First
}

// encodeCursor returns the opaque cursor of the page that follows the row with id.
func encodeCursor(id int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + strconv.FormatInt(id, 10)))
}

// decodeCursor returns the id a cursor continues after; 0 for the first page. A cursor that this
// package did not produce names no page, so it is storage.ErrNotFound.
func decodeCursor(after string) (int64, error) {
	if after == "" {
		return 0, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(after)
	if err != nil || !strings.HasPrefix(string(raw), cursorPrefix) {
		return 0, fmt.Errorf("gormstore: malformed page cursor: %w", storage.ErrNotFound)
	}
	id, err := strconv.ParseInt(strings.TrimPrefix(string(raw), cursorPrefix), 10, 64)
	if err != nil || id <= 0 {
		return 0, fmt.Errorf("gormstore: malformed page cursor: %w", storage.ErrNotFound)
	}
	return id, nil
}

// nextCursor trims rows fetched with one extra row (limit+1) to the page and returns the cursor
// of the next page, or "" when this page is the last.
func nextCursor[R any](rows []R, limit int, id func(R) int64) ([]R, string) {
	if len(rows) <= limit {
		return rows, ""
	}
	rows = rows[:limit]
	return rows, encodeCursor(id(rows[limit-1]))
}
