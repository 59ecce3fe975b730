package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// quickstartBlocks returns the sh blocks of docs/quickstart.md, in order.
func quickstartBlocks(t *testing.T) []string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "quickstart.md"))
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	rest := string(doc)
	for {
		var ok bool
		if _, rest, ok = strings.Cut(rest, "\n```sh\n"); !ok {
			return blocks
		}
		var block string
		if block, rest, ok = strings.Cut(rest, "\n```\n"); !ok {
			t.Fatal("docs/quickstart.md: an sh block is not closed")
		}
		blocks = append(blocks, block)
	}
}

// runQuickstart runs the blocks as one POSIX shell script, stopping at the first failing
// command, against the demo d (the documented ports replaced by its), and returns its output
// and status.
func runQuickstart(t *testing.T, d runningDemo, blocks []string) (string, error) {
	t.Helper()
	_, port, _ := strings.Cut(d.addr, ":")
	_, internalPort, _ := strings.Cut(d.internal, ":")
	script := "set -eu\n" + strings.Join(blocks, "\n")
	script = strings.NewReplacer(":8080", ":"+port, ":8081", ":"+internalPort).Replace(script)
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "TMPDIR="+cmd.Dir)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestQuickstart runs docs/quickstart.md's commands, in order, against a demo and checks that
// they reach each API: the anonymous and the operator MCP tools, the operator REST API and the
// Member API.
func TestQuickstart(t *testing.T) {
	for _, tool := range []string{"sh", "curl", "sed", "mktemp"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the quickstart needs %s: %v", tool, err)
		}
	}
	blocks := quickstartBlocks(t)
	if len(blocks) < 5 {
		t.Fatalf("docs/quickstart.md has %d sh blocks", len(blocks))
	}
	d := startDemo(t)
	out, err := runQuickstart(t, d, blocks)
	if err != nil {
		t.Fatalf("the quickstart failed: %v\n%s", err, out)
	}
	for _, want := range []string{
		`"structuredContent":{"courses":[`,       // list_courses, anonymous
		`{"items":[{"id":1,"slug":`,              // GET /api/v1/courses, operator token
		`"structuredContent":{"as_of":`,          // admin_analytics_summary, operator token
		`{"data":{"viewer":{"name":"Sam Carter"`, // the Member API, member token
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the quickstart's output lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, `"errors"`) || strings.Contains(out, `"isError":true`) {
		t.Errorf("the quickstart's output has errors:\n%s", out)
	}

	// The harness can fail: a wrong path in one command stops the script.
	broken := append([]string(nil), blocks...)
	for i, b := range broken {
		broken[i] = strings.Replace(b, "/api/v1/courses", "/api/v1/no-such-thing", 1)
	}
	if out, err := runQuickstart(t, d, broken); err == nil {
		t.Errorf("the quickstart with a wrong URL succeeded:\n%s", out)
	}
}
