package server_test

import (
	"errors"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// module is the import path of this module.
const module = "github.com/proctorhq/proctor"

// fosite is the OAuth library the authorization server is built on.
const fosite = "github.com/ory/fosite"

// importGraph maps each package of the module to the packages its non-test files import, as
// go/build reads them for this platform. It reads the source tree (from the module root, one
// directory up), so it needs neither the go command nor a build.
func importGraph(t *testing.T) map[string][]string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("the module root is not one directory up: %v", err)
	}
	graph := map[string][]string{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		name := d.Name()
		if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		pkg, err := build.Default.ImportDir(path, 0)
		var none *build.NoGoError
		if errors.As(err, &none) {
			return nil
		}
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		ip := module
		if rel != "." {
			ip += "/" + filepath.ToSlash(rel)
		}
		graph[ip] = pkg.Imports
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{module + "/authz", module + "/discovery", module + "/server"} {
		if _, ok := graph[p]; !ok {
			t.Fatalf("the import graph misses %s: the walk went wrong", p)
		}
	}
	return graph
}

// deps returns the packages pkg depends on, as `go list -deps` lists them, except that the
// imports of packages outside the module are not followed: none of them leads back to ours,
// and fosite reaches a package of ours only through one of ours that imports it.
func deps(graph map[string][]string, pkg string) map[string]bool {
	seen := map[string]bool{}
	var visit func(string)
	visit = func(p string) {
		for _, q := range graph[p] {
			if !seen[q] {
				seen[q] = true
				visit(q)
			}
		}
	}
	visit(pkg)
	return seen
}

// within reports whether pkg is root or one of its subpackages.
func within(pkg, root string) bool { return pkg == root || strings.HasPrefix(pkg, root+"/") }

func matching(set map[string]bool, root string) []string {
	var out []string
	for p := range set {
		if within(p, root) {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// TestLayers pins the directions of the import graph that keep the OAuth machinery in one place:
// only the authorization server (authz) and the token verifier (resource/verifier) import fosite; the
// discovery documents, the operator API and the operator pages name the authorization server's
// endpoints through package endpoint, and manage clients through package client, without
// depending on authz; client and endpoint import neither. It also keeps childproc, which runs
// the binary as a child process, a leaf that only the load command (and tests) import, and the
// load command a client that only the command line imports.
func TestLayers(t *testing.T) {
	graph := importGraph(t)

	t.Run("only the authorization server and the token verifier import fosite", func(t *testing.T) {
		for pkg, imports := range graph {
			// servertest is test support: it mints tokens as the authorization server does.
			if within(pkg, module+"/authz") || pkg == module+"/resource/verifier" || within(pkg, module+"/server/servertest") {
				continue
			}
			for _, imp := range imports {
				if within(imp, fosite) {
					t.Errorf("%s imports %s", pkg, imp)
				}
			}
		}
	})

	for _, c := range []struct {
		pkg    string
		denied []string
	}{
		{"discovery", []string{module + "/authz", fosite}},
		{"operator", []string{module + "/authz", fosite}},
		{"admin", []string{module + "/authz", fosite}},
		{"client", []string{module + "/authz", fosite}},
		{"resource", []string{module + "/authz", fosite}},
		{"resource/graphql", []string{module + "/authz", fosite}},
		{"resource/mcp", []string{module + "/authz", fosite}},
	} {
		pkg := module + "/" + c.pkg
		t.Run(c.pkg, func(t *testing.T) {
			if _, ok := graph[pkg]; !ok {
				t.Fatalf("no package %s", pkg)
			}
			d := deps(graph, pkg)
			for _, root := range c.denied {
				found := matching(d, root)
				if len(found) > 0 {
					t.Errorf("%s depends on %s", c.pkg, strings.Join(found, ", "))
				}
			}
		})
	}

	for _, leaf := range []string{"endpoint", "childproc"} {
		t.Run(leaf+" is a leaf", func(t *testing.T) {
			if _, ok := graph[module+"/"+leaf]; !ok {
				t.Fatalf("no package %s", leaf)
			}
			for _, imp := range graph[module+"/"+leaf] {
				if within(imp, module) {
					t.Errorf("%s imports %s", leaf, imp)
				}
			}
		})
	}

	// childproc runs `proctor serve` as a child process: the load command's business and the
	// tests', never the server's.
	t.Run("only bench imports childproc", func(t *testing.T) {
		for pkg, imports := range graph {
			if pkg != module+"/bench" && slices.Contains(imports, module+"/childproc") {
				t.Errorf("%s imports childproc", pkg)
			}
		}
	})

	// The load command is a client of the server it measures: it seeds through the storage API
	// and speaks HTTP, and only the command line reaches it.
	t.Run("the load command is a client", func(t *testing.T) {
		allowed := []string{"bench/flow", "childproc", "client", "config", "endpoint", "password", "school", "storage"}
		for _, pkg := range []string{module + "/bench", module + "/bench/flow"} {
			if _, ok := graph[pkg]; !ok {
				t.Fatalf("no package %s", pkg)
			}
			for _, imp := range graph[pkg] {
				if within(imp, module) && !slices.Contains(allowed, strings.TrimPrefix(imp, module+"/")) {
					t.Errorf("%s imports %s", pkg, imp)
				}
			}
		}
		for pkg, imports := range graph {
			if pkg != module+"/cmd/proctor" && !within(pkg, module+"/bench") && slices.Contains(imports, module+"/bench") {
				t.Errorf("%s imports bench", pkg)
			}
		}
	})
}
