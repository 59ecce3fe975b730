package graphql_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/proctorhq/proctor/server/servertest/schools"
)

// TestSchemaGolden keeps a reviewed copy of the schema: a change to schema.graphql (the file the
// binary embeds) fails here until the copy is updated with -update, so that every change to the
// API's shape shows in review as a change under testdata.
func TestSchemaGolden(t *testing.T) {
	sdl, err := os.ReadFile("schema.graphql")
	if err != nil {
		t.Fatal(err)
	}
	schools.Golden(t, filepath.Join("testdata", "schema.graphql.golden"), sdl)
}
