package schools

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// update is the -update flag of every test binary that compares golden files
// (go test ./discovery -update): docs/mcp.md and the packages' comments name it, so one flag
// here rewrites every copy Golden checks.
var update = flag.Bool("update", false, "rewrite the golden files the tests compare with (testdata)")

// Golden compares got with the reviewed copy at path byte for byte; with -update it first
// rewrites the copy, so that accepting a change is a reviewed change to the file.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs; review the change and run with -update.\ngot:\n%s", path, got)
	}
}

// GoldenJSON is Golden for a JSON document, kept indented by two spaces with a final newline so
// that a change to one field is a change to one line of the copy.
func GoldenJSON(t testing.TB, path string, got []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, got, "", "  "); err != nil {
		t.Fatalf("%s: not JSON: %v\n%s", path, err, got)
	}
	buf.WriteByte('\n')
	Golden(t, path, buf.Bytes())
}
