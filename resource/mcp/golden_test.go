package mcp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/proctorhq/proctor/server/servertest/schools"
)

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
	raw, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	// An intended change is also described in docs/mcp.md.
	schools.GoldenJSON(t, filepath.Join("testdata", "tools.golden.json"), raw)
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
