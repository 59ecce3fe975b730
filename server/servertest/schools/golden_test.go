package schools_test

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/proctorhq/proctor/server/servertest/schools"
)

// setUpdate sets the -update flag for the rest of the test.
func setUpdate(t *testing.T, on bool) {
	t.Helper()
	prev := flag.Lookup("update").Value.String()
	set := func(v string) {
		if err := flag.Set("update", v); err != nil {
			t.Fatal(err)
		}
	}
	set(strconv.FormatBool(on))
	t.Cleanup(func() { set(prev) })
}

// With -update Golden writes the copy (and its directory) as given; without it, it passes the
// same bytes and reports other bytes, leaving the copy as it was.
func TestGolden(t *testing.T) {
	path := filepath.Join(t.TempDir(), "testdata", "doc.txt")
	setUpdate(t, true)
	schools.Golden(t, path, []byte("one\n"))
	if b, err := os.ReadFile(path); err != nil || string(b) != "one\n" {
		t.Fatalf("written copy %q, %v", b, err)
	}

	setUpdate(t, false)
	for _, tc := range []struct {
		got   string
		fails int
	}{{"one\n", 0}, {"one", 1}, {"two\n", 1}} {
		f := &failures{TB: t}
		schools.Golden(f, path, []byte(tc.got))
		if len(f.got) != tc.fails {
			t.Errorf("%q: %d failures, want %d: %q", tc.got, len(f.got), tc.fails, f.got)
		}
	}
	if b, _ := os.ReadFile(path); string(b) != "one\n" {
		t.Errorf("a comparison changed the copy: %q", b)
	}
}

// GoldenJSON keeps the document indented by two spaces with a final newline, whatever spacing
// the JSON came with, as json.MarshalIndent writes it.
func TestGoldenJSON(t *testing.T) {
	path := filepath.Join(t.TempDir(), "doc.json")
	setUpdate(t, true)
	schools.GoldenJSON(t, path, []byte(`{"a":[1, 2],"b":{"c":"<&>"}}`))
	want := "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": {\n    \"c\": \"<&>\"\n  }\n}\n"
	if b, _ := os.ReadFile(path); string(b) != want {
		t.Errorf("written copy:\n%s\nwant:\n%s", b, want)
	}

	setUpdate(t, false)
	f := &failures{TB: t}
	schools.GoldenJSON(f, path, []byte(`{"a": [1,2], "b": {"c": "<&>"}}`))
	schools.GoldenJSON(f, path, []byte(`{"a":[2,1],"b":{"c":"<&>"}}`))
	if len(f.got) != 1 {
		t.Errorf("%d failures, want 1 (the reordered array): %q", len(f.got), f.got)
	}
}
