package gormstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	gosqlite "github.com/glebarez/go-sqlite"
	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"

	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
)

func TestWrap(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want error // nil: no storage sentinel
	}{
		{"not found", gorm.ErrRecordNotFound, storage.ErrNotFound},
		{"no rows", sql.ErrNoRows, storage.ErrNotFound},
		{"pg unique", &pgconn.PgError{Code: "23505", Message: "duplicate key"}, storage.ErrAlreadyExists},
		{"pg foreign key", &pgconn.PgError{Code: "23503"}, storage.ErrNotFound},
		{"pg connection failure", &pgconn.PgError{Code: "08006"}, storage.ErrUnavailable},
		{"pg too many connections", &pgconn.PgError{Code: "53300"}, storage.ErrUnavailable},
		{"pg shutting down", &pgconn.PgError{Code: "57P01"}, storage.ErrUnavailable},
		{"pg statement timeout", &pgconn.PgError{Code: "57014"}, storage.ErrUnavailable},
		{"pg serialization", &pgconn.PgError{Code: "40001"}, storage.ErrUnavailable},
		{"pg syntax", &pgconn.PgError{Code: "42601"}, nil},
		{"wrapped pg unique", fmt.Errorf("insert: %w", &pgconn.PgError{Code: "23505"}), storage.ErrAlreadyExists},
		{"sqlite unique text", errors.New("constraint failed: UNIQUE constraint failed: members.email (2067)"), storage.ErrAlreadyExists},
		{"sqlite foreign key text", errors.New("constraint failed: FOREIGN KEY constraint failed (787)"), storage.ErrNotFound},
		{"sqlite locked text", errors.New("database is locked (5) (SQLITE_BUSY)"), storage.ErrUnavailable},
		{"bad conn", driver.ErrBadConn, storage.ErrUnavailable},
		{"conn done", sql.ErrConnDone, storage.ErrUnavailable},
		{"closed pool", errors.New("sql: database is closed"), storage.ErrUnavailable},
		{"refused", &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}, storage.ErrUnavailable},
		{"deadline", fmt.Errorf("dial: %w", context.DeadlineExceeded), storage.ErrUnavailable},
		{"canceled", context.Canceled, nil},
		{"other", errors.New("something else"), nil},
	}
	for _, tc := range tests {
		got := wrap("op", tc.err)
		if !errors.Is(got, tc.err) {
			t.Errorf("%s: %v does not wrap the original error", tc.name, got)
		}
		for _, sentinel := range []error{storage.ErrNotFound, storage.ErrAlreadyExists, storage.ErrUnavailable} {
			if is := errors.Is(got, sentinel); is != (sentinel == tc.want) {
				t.Errorf("%s: errors.Is(%v, %v) = %v", tc.name, got, sentinel, is)
			}
		}
	}
	if wrap("op", nil) != nil {
		t.Error("wrap(nil) is not nil")
	}
	// Storage's own answers are not classified twice.
	got := wrap("op", fmt.Errorf("x: %w", storage.ErrNotFound))
	if !errors.Is(got, storage.ErrNotFound) || errors.Is(got, storage.ErrUnavailable) {
		t.Errorf("wrapped sentinel: %v", got)
	}
	got = wrap("op", fmt.Errorf("x: %w", storage.ErrInvalidArgument))
	if !errors.Is(got, storage.ErrInvalidArgument) || errors.Is(got, storage.ErrNotFound) {
		t.Errorf("wrapped invalid argument: %v", got)
	}
	if !errors.Is(wrap("op", school.ErrNoSchool), school.ErrNoSchool) {
		t.Error("ErrNoSchool lost")
	}
}

// TestWrapSQLiteErrors checks the mapping on errors the driver really returns, by their codes.
func TestWrapSQLiteErrors(t *testing.T) {
	s := newSQLiteStore(t)
	db := s.db.WithContext(t.Context())
	now := time.Now().UTC()
	insert := func() error {
		return db.Exec("INSERT INTO members (email, created_at, updated_at) VALUES (?, ?, ?)", "a@example.test", now, now).Error
	}
	if err := insert(); err != nil {
		t.Fatal(err)
	}
	err := insert()
	var liteErr *gosqlite.Error
	if !errors.As(err, &liteErr) {
		t.Fatalf("duplicate insert: %T %v, want a *sqlite.Error", err, err)
	}
	if classifySQLite(liteErr.Code()) != storage.ErrAlreadyExists {
		t.Errorf("code %d not classified as ErrAlreadyExists", liteErr.Code())
	}

	err = db.Exec("INSERT INTO member_roles (school_id, member_id, role, created_at) VALUES (99, 99, 'student', ?)", now).Error
	if !errors.As(err, &liteErr) || classifySQLite(liteErr.Code()) != storage.ErrNotFound {
		t.Errorf("foreign key violation: %v", err)
	}
}

func TestUnavailable(t *testing.T) {
	// Nothing listens on port 1.
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	_, err := Open(ctx, Config{Driver: DriverPostgres, DSN: "postgres://postgres@127.0.0.1:1/x?sslmode=disable&connect_timeout=5"})
	if !errors.Is(err, storage.ErrUnavailable) {
		t.Errorf("Open of a closed port: %v, want ErrUnavailable", err)
	}

	s := newSQLiteStore(t)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Ping(t.Context()); !errors.Is(err, storage.ErrUnavailable) {
		t.Errorf("Ping of a closed store: %v, want ErrUnavailable", err)
	}
	if _, err := s.GetMember(t.Context(), 1); !errors.Is(err, storage.ErrUnavailable) {
		t.Errorf("GetMember on a closed store: %v, want ErrUnavailable", err)
	}
}
