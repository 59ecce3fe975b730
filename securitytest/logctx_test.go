package securitytest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// logScanSkipped are the module's packages that serve no request: the command line, the load
// client, the test environments and the guards themselves. Every other package is scanned.
var logScanSkipped = []string{
	"cmd/", "bench", "internal/", "systemtest", "securitytest", "e2e",
	"server/servertest", "resource/resourcetest", "storage/conformance", "storage/gormstore/internal/", "storage/gormstore/storetest",
}

// contextFreeLogAllowed are log calls without a context that the scan finds in scanned
// packages, each with the reason no request is being served. Keys are "path: message" as the
// scan prints them.
var contextFreeLogAllowed = map[string]string{
	`admin/members.go: "the store keeps no member roster: no member administration pages"`:                                                                                       "mounting the pages, in server.New, before anything is served",
	`server/mail.go: "mail is not configured (mail.host): messages wait in the outbox until it is"`:                                                                              "setting up the mail worker, in server.New, before anything is served",
	`server/server.go: "cimd.allow_private_networks is on: client metadata documents may be fetched from loopback and private addresses; use it for development and tests only"`: "server.New, before anything is served",
	`server/server.go: "login rate limits are counted in Redis, shared by every replica using it"`:                                                                               "mounting the pages, in server.New, before anything is served",
	"server/server.go: \"the store keeps no account unlocks: `proctor members unlock` has no effect on this server\"":                                                            "mounting the pages, in server.New, before anything is served",
	`server/server.go: "the store keeps no account tables or mail outbox: no invitations, password recovery or account page"`:                                                    "mounting the pages, in server.New, before anything is served",
	`server/server.go: "the store keeps no passkeys: no passkey pages"`:                                                                                                          "mounting the pages, in server.New, before anything is served",
}

// slogWithoutContext are the methods of *slog.Logger (and the package functions of log/slog)
// that log with context.Background(): a line logged by one carries no trace id.
var slogWithoutContext = map[string]bool{"Debug": true, "Info": true, "Warn": true, "Error": true}

// slogWithContext are the ones that take a context first, with the index of their message: the
// scan fails on those given context.Background() or context.TODO(), which carry no request.
var slogWithContext = map[string]int{
	"DebugContext": 1, "InfoContext": 1, "WarnContext": 1, "ErrorContext": 1, "Log": 2, "LogAttrs": 2,
}

// freshContext reports whether e is a call of context.Background or context.TODO.
func freshContext(info *types.Info, e ast.Expr) bool {
	fn := calledFunc(info, e)
	return fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "context" && (fn.Name() == "Background" || fn.Name() == "TODO")
}

// calledFunc returns the package function or method that e calls by a selector (pkg.F or
// x.M), or nil.
func calledFunc(info *types.Info, e ast.Expr) *types.Func {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return nil
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	fn, _ := info.Uses[sel.Sel].(*types.Func)
	return fn
}

// listedPackage is what `go list -export -json` says of one package.
type listedPackage struct {
	ImportPath string
	Dir        string
	Export     string
	GoFiles    []string
	Standard   bool
}

// TestLogCallsCarryTheContext type-checks every package that can run while a request is served
// and fails on each call of (*slog.Logger).Debug/Info/Warn/Error or slog.Debug/Info/Warn/Error:
// those log with context.Background(), so their lines lack the request's trace id. The
// *Context variants, Log and LogAttrs take the context and pass, unless they are handed
// context.Background() or context.TODO().
func TestLogCallsCarryTheContext(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the module's export data")
	}
	pkgs := listPackages(t)
	fset := token.NewFileSet()
	exports := map[string]string{}
	for _, p := range pkgs {
		exports[p.ImportPath] = p.Export
	}
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		if f := exports[path]; f != "" {
			return os.Open(f)
		}
		return nil, fmt.Errorf("no export data for %s", path)
	})
	const module = "github.com/proctorhq/proctor"
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	var found []logCall
	scanned := 0
	for _, p := range pkgs {
		rel, ok := strings.CutPrefix(p.ImportPath, module+"/")
		if !ok || logScanIgnored(rel) || len(p.GoFiles) == 0 {
			continue
		}
		scanned++
		found = append(found, contextFreeLogCalls(t, fset, imp, root, p)...)
	}
	if scanned < 20 {
		t.Fatalf("scanned %d packages: the package list is not the module's", scanned)
	}
	sort.Slice(found, func(i, j int) bool { return found[i].pos < found[j].pos })
	used := map[string]bool{}
	for _, c := range found {
		if _, ok := contextFreeLogAllowed[c.key]; ok {
			used[c.key] = true
			continue
		}
		t.Errorf("%s: logged without the request's context (use the *Context variant or Log with ctx): %s", c.pos, c.key)
	}
	for key := range contextFreeLogAllowed {
		if !used[key] {
			t.Errorf("allowed call not found any more (remove it from contextFreeLogAllowed): %s", key)
		}
	}
}

func logScanIgnored(rel string) bool {
	for _, s := range logScanSkipped {
		if rel == strings.TrimSuffix(s, "/") || strings.HasPrefix(rel, strings.TrimSuffix(s, "/")+"/") {
			return true
		}
	}
	return false
}

// listPackages lists the module's packages with their dependencies' export data.
func listPackages(t *testing.T) []listedPackage {
	t.Helper()
	cmd := exec.Command("go", "list", "-export", "-deps", "-json=ImportPath,Dir,Export,GoFiles,Standard", "./...")
	cmd.Dir = ".."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p listedPackage
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// logCall is one call found by the scan: key is "path: message", pos where it is.
type logCall struct{ key, pos string }

// contextFreeLogCalls type-checks one package and returns its calls that log without a
// context.
func contextFreeLogCalls(t *testing.T, fset *token.FileSet, imp types.Importer, root string, p listedPackage) []logCall {
	t.Helper()
	var files []*ast.File
	for _, name := range p.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	conf := types.Config{Importer: imp}
	if _, err := conf.Check(p.ImportPath, fset, files, info); err != nil {
		t.Fatalf("type-checking %s: %v", p.ImportPath, err)
	}
	var found []logCall
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			fn := calledFunc(info, call)
			if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "log/slog" {
				return true
			}
			if recv := fn.Signature().Recv(); recv != nil && types.TypeString(recv.Type(), nil) != "*log/slog.Logger" {
				return true
			}
			msgArg := 0
			if i, ok := slogWithContext[fn.Name()]; ok && len(call.Args) > 0 && freshContext(info, call.Args[0]) {
				msgArg = i
			} else if !slogWithoutContext[fn.Name()] {
				return true
			}
			pos := fset.Position(call.Pos())
			path, _ := filepath.Rel(root, pos.Filename)
			path = filepath.ToSlash(path)
			msg := ""
			if len(call.Args) > msgArg {
				msg = exprString(fset, call.Args[msgArg])
			}
			found = append(found, logCall{key: path + ": " + msg, pos: fmt.Sprintf("%s:%d", path, pos.Line)})
			return true
		})
	}
	return found
}
