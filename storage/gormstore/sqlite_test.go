package gormstore

import (
	"testing"

	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/conformance"
)

func TestSQLite(t *testing.T) {
	conformance.RunTests(t, func(t *testing.T) storage.Store { return newSQLiteStore(t) })
}
