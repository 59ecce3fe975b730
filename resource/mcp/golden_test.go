package mcp_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

var update = flag.Bool("update", false, "rewrite testdata/tools.golden.json from the server's answers")

// TestToolsGolden compares the tools/list result of each audience with
// testdata/tools.golden.json, so that a changed name, description or schema is a reviewed
// change (docs/mcp.md documents the same). Run with -update to accept a change.
func TestToolsGolden(t *testing.T) {
	e := newEnv(t, "sqlite")
	audiences := map[string]string{
		"anonymous":         "",
		"member_read":       e.Token(e.A, studentEmail, readScope),
		"member_read_write": e.Token(e.A, studentEmail, bothScopes),
		"operator":          e.Token(e.A, ownerEmail, operatorScope),
	}
	got := map[string]*sdk.ListToolsResult{}
	for name, token := range audiences {
		res, err := e.connect(e.A, token, "").ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		got[name] = res
	}
	raw, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	raw = append(raw, '\n')
	path := filepath.Join("testdata", "tools.golden.json")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./resource/mcp -run TestToolsGolden -update)", err)
	}
	if !bytes.Equal(raw, want) {
		t.Errorf("tools/list differs from %s; if the change is intended, run with -update and update docs/mcp.md.\ngot:\n%s", path, raw)
	}
}

// TestDocsDescribeEveryTool: docs/mcp.md has a reference entry for every tool the server has,
// and none for a tool it does not.
func TestDocsDescribeEveryTool(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "mcp.md"))
	if err != nil {
		t.Fatal(err)
	}
	var documented []string
	for _, line := range strings.Split(string(doc), "\n") {
		if name, ok := strings.CutPrefix(line, "### `"); ok {
			documented = append(documented, strings.TrimSuffix(name, "`"))
		}
	}
	slices.Sort(documented)
	all := sorted(slices.Concat(publicNames, readNames, writeNames, operatorNames))
	if !slices.Equal(documented, all) {
		t.Errorf("docs/mcp.md describes %v, the server has %v", documented, all)
	}
}
