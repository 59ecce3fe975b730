package graphql_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestSchemaGolden keeps a reviewed copy of the schema: a change to schema.graphql (the file the
// binary embeds) fails here until the copy is updated with -update, so that every change to the
// API's shape shows in review as a change under testdata.
func TestSchemaGolden(t *testing.T) {
	sdl, err := os.ReadFile("schema.graphql")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "schema.graphql.golden")
	if *update {
		if err := os.WriteFile(path, sdl, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(want, sdl) {
		t.Errorf("schema.graphql differs from %s; review the change and run with -update", path)
	}
}
