package storetest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/proctorhq/proctor/storage/gormstore"
	"github.com/proctorhq/proctor/storage/gormstore/internal/pgtest"
)

// PostgresDSNEnv names the PostgreSQL server tests may create schemas in.
const PostgresDSNEnv = pgtest.DSNEnv

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
	return pgtest.Schema(t, dsn)
}
