package gormstore

import (
	"os"
	"testing"

	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/conformance"
)

// The PostgreSQL suites run only when PROCTOR_TEST_POSTGRES_DSN names a server; each test gets a
// schema of its own.

func TestPostgresIdentity(t *testing.T) {
	if os.Getenv(postgresDSNEnv) == "" {
		t.Skipf("%s is not set", postgresDSNEnv)
	}
	conformance.RunIdentityTests(t, func(t *testing.T) storage.Store { return newPostgresStore(t) })
}

func TestPostgresSchoolData(t *testing.T) {
	if os.Getenv(postgresDSNEnv) == "" {
		t.Skipf("%s is not set", postgresDSNEnv)
	}
	conformance.RunSchoolDataTests(t, func(t *testing.T) storage.Store { return newPostgresStore(t) })
}
