package pgtest

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver, for schema set-up
)

// DSNEnv names the PostgreSQL server tests may create schemas in; without it they run on
// SQLite only.
const DSNEnv = "PROCTOR_TEST_POSTGRES_DSN"

// Schema creates a fresh, empty schema on the server dsn names and returns dsn with its
// search_path set to that schema. The schema is dropped when the test ends, after every cleanup
// registered later (so a store opened on it must be closed by then).
func Schema(t testing.TB, dsn string) string {
	t.Helper()
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	schema := "t_" + hex.EncodeToString(b)
	if _, err := admin.ExecContext(t.Context(), "CREATE SCHEMA "+schema); err != nil {
		admin.Close()
		t.Fatalf("pgtest: create schema (is PostgreSQL running?): %v", err)
	}
	// Registered before the store's Close, so it runs after it.
	t.Cleanup(func() {
		if _, err := admin.Exec("DROP SCHEMA " + schema + " CASCADE"); err != nil {
			t.Errorf("pgtest: drop schema %s: %v", schema, err)
		}
		admin.Close()
	})
	return withSearchPath(t, dsn, schema)
}

// withSearchPath adds search_path to a URL or key=value DSN (pgx sends unknown settings to the
// server as run-time parameters).
func withSearchPath(t testing.TB, dsn, schema string) string {
	if strings.Contains(dsn, "://") {
		u, err := url.Parse(dsn)
		if err != nil {
			t.Fatalf("pgtest: %s: %v", DSNEnv, err)
		}
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
		return u.String()
	}
	return dsn + " search_path=" + schema
}
