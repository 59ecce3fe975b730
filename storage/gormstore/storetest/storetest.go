// Package storetest opens migrated gormstore databases for the tests of other packages: SQLite
// in a temporary directory always, and PostgreSQL in a schema of its own when
// PROCTOR_TEST_POSTGRES_DSN is set (CI sets it), dropped when the test ends.
package storetest

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver, for schema set-up

	"github.com/proctorhq/proctor/storage/gormstore"
)

// PostgresDSNEnv names the PostgreSQL server tests may create schemas in.
const PostgresDSNEnv = "PROCTOR_TEST_POSTGRES_DSN"

// Backends lists the databases a test should run on.
func Backends() []string {
	if os.Getenv(PostgresDSNEnv) != "" {
		return []string{gormstore.DriverSQLite, gormstore.DriverPostgres}
	}
	return []string{gormstore.DriverSQLite}
}

// Open returns a migrated store of the given backend, closed (and its schema dropped) when
// the test ends.
func Open(t testing.TB, backend string) *gormstore.Store {
	t.Helper()
	st, _ := OpenConfig(t, backend)
	return st
}

// OpenConfig is Open that also returns the driver and DSN the store was opened with, for tests
// that read the database with a connection of their own.
func OpenConfig(t testing.TB, backend string) (*gormstore.Store, gormstore.Config) {
	t.Helper()
	cfg := gormstore.Config{Driver: backend}
	switch backend {
	case gormstore.DriverSQLite:
		cfg.DSN = filepath.Join(t.TempDir(), "proctor.db")
	case gormstore.DriverPostgres:
		cfg.DSN = postgresSchema(t)
		cfg.MaxOpenConns = 8
	default:
		t.Fatalf("storetest: unknown backend %q", backend)
	}
	st, err := gormstore.Open(t.Context(), cfg)
	if err != nil {
		t.Fatalf("storetest: open %s: %v", backend, err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if _, err := st.Migrate(t.Context()); err != nil {
		t.Fatalf("storetest: migrate %s: %v", backend, err)
	}
	return st, cfg
}

// postgresSchema creates a fresh schema and returns a DSN whose search_path is it.
func postgresSchema(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(PostgresDSNEnv)
	if dsn == "" {
		t.Fatalf("storetest: %s is not set", PostgresDSNEnv)
	}
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	schema := "t_" + hex.EncodeToString(b)
	if _, err := admin.ExecContext(t.Context(), "CREATE SCHEMA "+schema); err != nil {
		admin.Close()
		t.Fatalf("storetest: create schema (is PostgreSQL running?): %v", err)
	}
	// Registered before the store's Close, so it runs after it.
	t.Cleanup(func() {
		if _, err := admin.Exec("DROP SCHEMA " + schema + " CASCADE"); err != nil {
			t.Errorf("storetest: drop schema %s: %v", schema, err)
		}
		admin.Close()
	})
	if strings.Contains(dsn, "://") {
		u, err := url.Parse(dsn)
		if err != nil {
			t.Fatalf("storetest: %s: %v", PostgresDSNEnv, err)
		}
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
		return u.String()
	}
	return dsn + " search_path=" + schema
}
