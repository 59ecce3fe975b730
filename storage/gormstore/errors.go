package gormstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	gosqlite "github.com/glebarez/go-sqlite"
	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
)

// wrap is the one place where database errors become storage errors. op says what the store was
// doing ("get member", "import courses" ...). The result always wraps err itself too, so that
// the driver's message stays in logs, but callers only ever need errors.Is with storage's
// sentinels (or context.Canceled when they cancelled the call themselves).
func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	if sentinel := classify(err); sentinel != nil && !errors.Is(err, sentinel) {
		return fmt.Errorf("gormstore: %s: %w: %w", op, sentinel, err)
	}
	return fmt.Errorf("gormstore: %s: %w", op, err)
}

// classify returns the storage sentinel err stands for, or nil when none applies.
func classify(err error) error {
	switch {
	case errors.Is(err, storage.ErrNotFound), errors.Is(err, storage.ErrAlreadyExists),
		errors.Is(err, storage.ErrInvalidArgument), errors.Is(err, storage.ErrUnavailable),
		errors.Is(err, school.ErrNoSchool):
		return nil // already a storage answer
	case errors.Is(err, gorm.ErrRecordNotFound), errors.Is(err, sql.ErrNoRows):
		return storage.ErrNotFound
	case errors.Is(err, gorm.ErrDuplicatedKey):
		return storage.ErrAlreadyExists
	case errors.Is(err, gorm.ErrForeignKeyViolated):
		return storage.ErrNotFound
	case errors.Is(err, context.Canceled):
		// The caller gave up; that is no statement about the database.
		return nil
	}

	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return classifyPostgres(pgErr.Code)
	}
	var liteErr *gosqlite.Error
	if errors.As(err, &liteErr) {
		return classifySQLite(liteErr.Code())
	}
	if unreachable(err) {
		return storage.ErrUnavailable
	}
	// Last resort for errors that lost their type on the way (gorm and the drivers sometimes
	// rebuild them from strings).
	msg := err.Error()
	switch {
	case strings.Contains(msg, "UNIQUE constraint failed"):
		return storage.ErrAlreadyExists
	case strings.Contains(msg, "FOREIGN KEY constraint failed"):
		return storage.ErrNotFound
	case strings.Contains(msg, "database is locked"), strings.Contains(msg, "database is closed"),
		strings.Contains(msg, "conn closed"):
		return storage.ErrUnavailable
	}
	return nil
}

// classifyPostgres maps a SQLSTATE (https://www.postgresql.org/docs/current/errcodes-appendix.html).
func classifyPostgres(code string) error {
	switch {
	case code == "23505": // unique_violation
		return storage.ErrAlreadyExists
	case code == "23503": // foreign_key_violation: the row referred to does not exist
		return storage.ErrNotFound
	case strings.HasPrefix(code, "08"), // connection exception
		code == "53300",                                   // too_many_connections
		code == "57P01", code == "57P02", code == "57P03", // shutdown, crash, cannot connect now
		code == "57014", // query_canceled, as by statement_timeout
		code == "40001", // serialization_failure: retrying is the answer
		code == "40P01": // deadlock_detected: likewise
		return storage.ErrUnavailable
	}
	return nil
}

// classifySQLite maps an extended result code (https://www.sqlite.org/rescode.html).
func classifySQLite(code int) error {
	switch code {
	case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
		return storage.ErrAlreadyExists
	case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
		return storage.ErrNotFound
	}
	switch code & 0xff { // primary result code
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_CANTOPEN,
		sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL, sqlite3.SQLITE_READONLY:
		return storage.ErrUnavailable
	}
	return nil
}

// unreachable reports whether err says the database could not be reached or did not answer in
// time.
func unreachable(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, driver.ErrBadConn) ||
		errors.Is(err, sql.ErrConnDone) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) {
		return true
	}
	var connectErr *pgconn.ConnectError
	if errors.As(err, &connectErr) {
		return true
	}
	if pgconn.Timeout(err) {
		return true
	}
	var netErr net.Error
	return errors.As(err, &netErr)
}

// rowsOrNotFound is the result of a statement that must change a row: ErrNotFound if it
// changed none.
func rowsOrNotFound(op string, res *gorm.DB) error {
	if res.Error != nil {
		return wrap(op, res.Error)
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("gormstore: %s: %w", op, storage.ErrNotFound)
	}
	return nil
}

// requireRow answers ErrNotFound unless q (a Model query) matches a row.
func requireRow(q *gorm.DB, op string) error {
	var n int64
	if err := q.Count(&n).Error; err != nil {
		return wrap(op, err)
	}
	if n == 0 {
		return fmt.Errorf("gormstore: %s: %w", op, storage.ErrNotFound)
	}
	return nil
}
