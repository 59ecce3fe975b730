package gormstore

import (
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// postgresDSNEnv names the PostgreSQL server the tests may use; without it they skip.
const postgresDSNEnv = "PROCTOR_TEST_POSTGRES_DSN"

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
	admin, err := Open(t.Context(), Config{Driver: DriverPostgres, DSN: dsn, MaxOpenConns: 1})
	if err != nil {
		t.Fatalf("open postgres: %v", err)
	}
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	schema := "t_" + hex.EncodeToString(b)
	if err := admin.db.Exec("CREATE SCHEMA " + schema).Error; err != nil {
		_ = admin.Close()
		t.Fatalf("create schema: %v", err)
	}
	// Registered before the store's Close, so it runs after it.
	t.Cleanup(func() {
		if err := admin.db.Exec("DROP SCHEMA " + schema + " CASCADE").Error; err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
		_ = admin.Close()
	})
	// A few connections per store: tests run in parallel against one server.
	dsn = withSearchPath(t, dsn, schema)
	s, err := Open(t.Context(), Config{Driver: DriverPostgres, DSN: dsn, MaxOpenConns: 4})
	if err != nil {
		t.Fatalf("open postgres schema %s: %v", schema, err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, dsn
}

// withSearchPath adds search_path to a URL or key=value DSN (pgx sends unknown settings to the
// server as run-time parameters).
func withSearchPath(t testing.TB, dsn, schema string) string {
	if strings.Contains(dsn, "://") {
		u, err := url.Parse(dsn)
		if err != nil {
			t.Fatalf("%s: %v", postgresDSNEnv, err)
		}
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
		return u.String()
	}
	return dsn + " search_path=" + schema
}
