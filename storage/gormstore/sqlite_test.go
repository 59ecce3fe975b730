package gormstore

import (
	"testing"

	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/conformance"
)

func TestSQLiteIdentity(t *testing.T) {
	conformance.RunIdentityTests(t, func(t *testing.T) storage.Store { return newSQLiteStore(t) })
}

func TestSQLiteSchoolData(t *testing.T) {
	conformance.RunSchoolDataTests(t, func(t *testing.T) storage.Store { return newSQLiteStore(t) })
}
