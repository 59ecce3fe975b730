package docsguard

import (
	"bytes"
	"encoding/base64"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/internal/testbin"
)

// proctor is the binary every test of the package runs, built once by TestMain.
var proctor string

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(func() int {
		dir, err := os.MkdirTemp("", "docsguard")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		if !testing.Short() {
			root, err := testbin.Root()
			if err == nil {
				proctor, err = testbin.Build(root, dir)
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
		}
		return m.Run()
	}())
}

// documents are the Markdown files whose snippets are checked: README.md and docs/*.md.
func documents(t *testing.T, root string) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{filepath.Join(root, "README.md")}, docs...)
}

// quickstart's commands start the demo and call it: its own test runs them.
const quickstart = "docs/quickstart.md"

// checker runs snippets through a freshly built proctor.
type checker struct {
	t       *testing.T
	exe     string
	root    string // the module root: commands run there, as from a checkout
	env     []string
	scratch string
}

func newChecker(t *testing.T) *checker {
	t.Helper()
	c := &checker{t: t, exe: proctor, root: testbin.ModuleRoot(t), scratch: t.TempDir()}
	schools := filepath.Join(c.scratch, "schools")
	os.MkdirAll(schools, 0o755)
	os.WriteFile(filepath.Join(schools, "a.yaml"), []byte("school_id: 1\nsubdomain: a\nname: A\nbase_url: http://127.0.0.1:8080\n"), 0o600)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PROCTOR_") {
			c.env = append(c.env, kv)
		}
	}
	c.env = append(c.env,
		"PROCTOR_SCHOOLS_DIR="+schools,
		"PROCTOR_SECRET="+base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{9}, 32)),
		"PROCTOR_MAIL_PASSWORD=docs-guard",
	)
	return c
}

// run runs proctor with args and extra environment, and returns an error with its output
// unless it exits 0.
func (c *checker) run(extraEnv []string, args ...string) error {
	cmd := exec.Command(c.exe, args...)
	cmd.Dir = c.root
	cmd.Env = append(append([]string{}, c.env...), extraEnv...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("proctor %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

// check validates one snippet; n makes its scratch files its own.
func (c *checker) check(s Snippet, n int) error {
	dir := filepath.Join(c.scratch, fmt.Sprint(n))
	os.MkdirAll(dir, 0o755)
	switch s.Info {
	case InfoServer:
		file := filepath.Join(dir, "proctor.yaml")
		os.WriteFile(file, []byte(s.Body), 0o600)
		return c.run(nil, "--config", file, "schools", "validate")
	case InfoSchool:
		os.WriteFile(filepath.Join(dir, "school.yaml"), []byte(s.Body), 0o600)
		return c.run([]string{"PROCTOR_SCHOOLS_DIR=" + dir}, "schools", "validate")
	case InfoShell:
		commands, err := Commands(s.Body)
		if err != nil {
			return err
		}
		if len(commands) == 0 {
			return fmt.Errorf("a checked block with no command")
		}
		for _, words := range commands {
			if err := c.run(nil, words[1:]...); err != nil {
				return err
			}
		}
	}
	return nil
}

// TestCheckedSnippets runs every checked snippet of README.md and docs/*.md.
func TestCheckedSnippets(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	c := newChecker(t)
	count := map[string]int{}
	for _, doc := range documents(t, c.root) {
		snippets, err := Extract(doc)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(c.root, doc)
		for i, s := range snippets {
			if !s.Checked() || (rel == quickstart && s.Info == InfoShell) {
				continue
			}
			count[s.Info]++
			s.File = rel
			if err := c.check(s, len(count)*1000+i); err != nil {
				t.Errorf("%s: %v", s, err)
			}
		}
	}
	t.Logf("checked blocks: %v", count)
	// The documentation this guard was written for has blocks of each kind: finding none
	// means the markers changed, not that all is well.
	for _, info := range []string{InfoServer, InfoSchool, InfoShell} {
		if count[info] == 0 {
			t.Errorf("no %q block found in README.md or docs/*.md", info)
		}
	}
}

// TestCheckerRefusesBrokenSnippets: the checks fail where an operator copying the snippet
// would fail, so that a passing TestCheckedSnippets means something.
func TestCheckerRefusesBrokenSnippets(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	c := newChecker(t)
	for i, s := range []Snippet{
		{Info: InfoServer, Body: "log: {level: loud}\n"},
		{Info: InfoServer, Body: "featurez: {}\n"},
		{Info: InfoSchool, Body: "school_id: 1\nsubdomain: a\nname: A\nbase_url: http://127.0.0.1:8080\nfeaturez:\n"},
		{Info: InfoSchool, Body: "school_id: -1\nsubdomain: a\nname: A\nbase_url: http://127.0.0.1:8080\n"},
		{Info: InfoShell, Body: "proctor --config /nowhere/proctor.yaml schools validate\n"},
		{Info: InfoShell, Body: "proctor serve\n"},
		{Info: InfoShell, Body: "proctor schools validate | tee out\n"},
		{Info: InfoShell, Body: "# nothing\n"},
	} {
		if err := c.check(s, i); err == nil {
			t.Errorf("%s %q passed", s.Info, s.Body)
		}
	}
	for i, s := range []Snippet{
		{Info: InfoServer, Body: "log: {level: debug}\nsecret_file: /nowhere/secret\n"},
		{Info: InfoSchool, Body: "school_id: 7\nsubdomain: b\nname: B\nbase_url: https://b.example\n"},
		{Info: InfoShell, Body: "# a comment\nproctor schools validate\nproctor \\\n  serve --help\n"},
	} {
		if err := c.check(s, 100+i); err != nil {
			t.Errorf("%s %q: %v", s.Info, s.Body, err)
		}
	}
}

func TestExtract(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.md")
	os.WriteFile(path, []byte("text\n```yaml checked-server\na: 1\n```\n\n````sh  checked\nproctor --help\n```\nstill inside\n````\n```\nplain\n```\n"), 0o600)
	got, err := Extract(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Info != InfoServer || got[0].Body != "a: 1\n" || got[0].Line != 2 ||
		got[1].Info != InfoShell || got[1].Body != "proctor --help\n```\nstill inside\n" || got[2].Checked() {
		t.Errorf("Extract = %+v", got)
	}
	os.WriteFile(path, []byte("```yaml\nnever closed\n"), 0o600)
	if _, err := Extract(path); err == nil {
		t.Error("an unclosed block was accepted")
	}
}

func TestSplitTables(t *testing.T) {
	md := "| a | b |\n|---|---|\n| 1 | 2 |\n\n| 3 | 4 |\n\ntext\n\n| c | d |\n|---|---|\n| 5 | 6 |\n```\n| x |\n\n| y |\n```\n"
	if got := SplitTables(md); len(got) != 1 || got[0] != 5 {
		t.Errorf("SplitTables = %v, want [5]", got)
	}
}

// TestTablesAreWhole: no table of README.md or docs/*.md is split by a blank line.
func TestTablesAreWhole(t *testing.T) {
	root := testbin.ModuleRoot(t)
	for _, doc := range documents(t, root) {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range SplitTables(string(b)) {
			t.Errorf("%s:%d: a table row after a blank line renders outside its table", doc, line)
		}
	}
}

// TestContainerExample runs the check docs/deployment.md's container example would run: the
// samples in deploy/ with the environment the example sets (the mount /etc/proctor is deploy/
// here). Every deploy/ path the documentation names must exist.
func TestContainerExample(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary")
	}
	root := testbin.ModuleRoot(t)
	deploy := filepath.Join(root, "deploy")
	if _, err := os.Stat(deploy); err != nil {
		t.Skip("deploy/ is not in this tree")
	}
	named := regexp.MustCompile("`(deploy/[^`\\s]+)`")
	for _, doc := range documents(t, root) {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range named.FindAllStringSubmatch(string(b), -1) {
			if _, err := os.Stat(filepath.Join(root, m[1])); err != nil {
				t.Errorf("%s names %s, which does not exist", doc, m[1])
			}
		}
	}
	c := newChecker(t)
	err := c.run([]string{
		"PROCTOR_PUBLIC_ADDR=0.0.0.0:8080", "PROCTOR_INTERNAL_ADDR=0.0.0.0:8081",
		"PROCTOR_SCHOOLS_DIR=" + filepath.Join(deploy, "schools"),
		"PROCTOR_DATABASE_DSN=postgres://proctor@db.internal:5432/proctor",
	}, "--config", filepath.Join(deploy, "proctor.yaml"), "schools", "validate")
	if err != nil {
		t.Error(err)
	}
}

// deployChecks names, for each file deploy/ may hold, the test that checks it. A file added to
// deploy/ without a check fails TestDeployHoldsOnlyCheckedFiles until its check is named here.
var deployChecks = map[string]string{
	"proctor.yaml":         "TestContainerExample (here), cmd/proctor TestDeploySamples",
	"schools/*.yaml":       "TestContainerExample (here), cmd/proctor TestDeploySamples",
	"proctor.service":      "cmd/proctor TestDeploySamples",
	"grafana/proctor.json": "server TestApplicationMetrics (dashboard)",
}

// TestDeployHoldsOnlyCheckedFiles: every file in deploy/ is one a test checks.
func TestDeployHoldsOnlyCheckedFiles(t *testing.T) {
	deploy := filepath.Join(testbin.ModuleRoot(t), "deploy")
	if _, err := os.Stat(deploy); err != nil {
		t.Skip("deploy/ is not in this tree")
	}
	found := map[string]bool{}
	err := filepath.WalkDir(deploy, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(deploy, path)
		rel = filepath.ToSlash(rel)
		for pattern := range deployChecks {
			if ok, _ := filepath.Match(pattern, rel); ok {
				found[pattern] = true
				return nil
			}
		}
		t.Errorf("deploy/%s: no test checks it (deployChecks)", rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for pattern := range deployChecks {
		if !found[pattern] {
			t.Errorf("deploy/%s is gone: drop it from deployChecks", pattern)
		}
	}
}
