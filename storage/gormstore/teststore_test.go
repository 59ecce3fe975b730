package gormstore

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/gormstore/internal/pgtest"
)

// postgresDSNEnv names the PostgreSQL server the tests may use; without it they skip.
const postgresDSNEnv = pgtest.DSNEnv

// inSchoolA creates school 1 ("a") in s and returns a context carrying it, after importing data
// there unless it is nil.
func inSchoolA(tb testing.TB, s *Store, data *storage.SchoolData) context.Context {
	tb.Helper()
	if err := s.SyncSchool(tb.Context(), 1, "a", "A"); err != nil {
		tb.Fatal(err)
	}
	ctx := school.NewContext(tb.Context(), &school.School{SchoolID: 1, Subdomain: "a"})
	if data != nil {
		if _, err := s.ImportSchoolData(ctx, data, storage.ImportOptions{}); err != nil {
			tb.Fatal(err)
		}
	}
	return ctx
}

// newSQLiteStore returns a migrated store on a fresh database file.
func newSQLiteStore(t testing.TB) *Store {
	t.Helper()
	s, err := Open(t.Context(), Config{Driver: DriverSQLite, DSN: filepath.Join(t.TempDir(), "db", "proctor.db")})
	if err != nil {
		t.Fatalf("open sqlite: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if _, err := s.Migrate(t.Context()); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return s
}

// newPostgresStore returns a migrated store in a schema of its own, dropped when the test ends,
// so that tests run in parallel and leave nothing behind. It skips without postgresDSNEnv.
func newPostgresStore(t testing.TB) *Store {
	t.Helper()
	s, _ := openPostgresSchema(t)
	if _, err := s.Migrate(t.Context()); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return s
}

// openPostgresSchema opens an unmigrated store whose search_path is a new, empty schema, and
// returns it with its DSN.
func openPostgresSchema(t testing.TB) (*Store, string) {
	t.Helper()
	dsn := os.Getenv(postgresDSNEnv)
	if dsn == "" {
		t.Skipf("%s is not set", postgresDSNEnv)
	}
	// A few connections per store: tests run in parallel against one server.
	dsn = pgtest.Schema(t, dsn)
	s, err := Open(t.Context(), Config{Driver: DriverPostgres, DSN: dsn, MaxOpenConns: 4})
	if err != nil {
		t.Fatalf("open postgres: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, dsn
}
