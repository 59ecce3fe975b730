package gormstore

import (
	"os"
	"testing"

	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/conformance"
)

// TestPostgres runs only when PROCTOR_TEST_POSTGRES_DSN names a server; each test gets a schema
// of its own.
func TestPostgres(t *testing.T) {
	if os.Getenv(postgresDSNEnv) == "" {
		t.Skipf("%s is not set", postgresDSNEnv)
	}
	conformance.RunTests(t, func(t *testing.T) storage.Store { return newPostgresStore(t) })
}
