package storetest

import "testing"

// PostgresDSN creates a fresh, empty PostgreSQL schema on the server PROCTOR_TEST_POSTGRES_DSN
// names and returns a DSN whose search_path is that schema. Nothing is migrated: tests that run
// `proctor migrate` or `serve --migrate` themselves use it. The schema is dropped when the test
// ends, after every cleanup registered later (processes using it must be stopped by then).
// The test fails if the variable is unset; check it (and skip) first.
func PostgresDSN(t testing.TB) string {
	t.Helper()
	return postgresSchema(t)
}
