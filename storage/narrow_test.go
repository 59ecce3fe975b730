package storage_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// maxInterfaceMethods is the widest interface a package may hold outside the composition root:
// a consumer declares the few methods it calls (as io.Reader), or picks one of storage's small
// named interfaces, so that what it can touch is written where it is used.
const maxInterfaceMethods = 40

const module = "github.com/proctorhq/proctor"

// mayHoldWide lists the packages that may hold a wide interface: the composition root, which
// builds every consumer from one backend, and the conformance suite, which checks the backend as
// a whole. storage itself may declare the composites (Store, IdentityStore, SchoolDataStore) but
// not hold one.
func mayHoldWide(pkg string) bool {
	switch {
	case pkg == "server", pkg == "cmd", strings.HasPrefix(pkg, "cmd/"), pkg == "storage/conformance":
		return true
	}
	return false
}

// TestNoWideInterfaces checks, over the source of every package, that no package outside
// mayHoldWide declares or holds (in a field, parameter, result or variable) an interface of more
// than maxInterfaceMethods methods, counting embedded interfaces. It reads syntax only: an
// interface is resolved through the declarations and aliases of this module, and an embedded
// interface of another module counts as its own methods are unknown (none of them is wide).
// Test files are skipped: test harnesses may hold the backend whole.
func TestNoWideInterfaces(t *testing.T) {
	idx := parseModule(t, "..")
	var problems []string
	for _, f := range idx.files {
		if mayHoldWide(f.pkg) {
			continue
		}
		report := func(pos token.Pos, what string) {
			problems = append(problems, idx.fset.Position(pos).String()+": "+what)
		}
		ast.Inspect(f.file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.TypeSpec:
				if it, ok := n.Type.(*ast.InterfaceType); ok && f.pkg != "storage" {
					if c := idx.count(f, it, 0); c > maxInterfaceMethods {
						report(n.Pos(), "declares "+n.Name.Name+", an interface of "+strconv.Itoa(c)+" methods")
					}
				}
			case *ast.InterfaceType:
				if f.pkg == "storage" {
					// storage composes its stores from the small interfaces; only the
					// methods' signatures are holdings.
					for _, m := range n.Methods.List {
						if len(m.Names) > 0 {
							ast.Inspect(m.Type, func(n ast.Node) bool {
								if fl, ok := n.(*ast.Field); ok {
									if c, name := idx.holds(f, fl.Type); c > maxInterfaceMethods {
										report(fl.Pos(), "holds "+name+", an interface of "+strconv.Itoa(c)+" methods")
									}
								}
								return true
							})
						}
					}
					return false
				}
			case *ast.Field:
				if c, name := idx.holds(f, n.Type); c > maxInterfaceMethods {
					report(n.Pos(), "holds "+name+", an interface of "+strconv.Itoa(c)+" methods")
				}
			case *ast.ValueSpec:
				if n.Type == nil || (len(n.Names) == 1 && n.Names[0].Name == "_") {
					return true // `var _ Iface = (*T)(nil)` asserts an implementation
				}
				if c, name := idx.holds(f, n.Type); c > maxInterfaceMethods {
					report(n.Pos(), "holds "+name+", an interface of "+strconv.Itoa(c)+" methods")
				}
			}
			return true
		})
	}
	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
}

type srcFile struct {
	pkg     string            // path relative to the module
	file    *ast.File         //
	imports map[string]string // local name -> path relative to the module ("" outside it)
}

type typeDecl struct {
	file *srcFile
	spec *ast.TypeSpec
}

type moduleIndex struct {
	fset  *token.FileSet
	files []*srcFile
	types map[string]typeDecl // "pkg.Name" -> declaration
}

func parseModule(t *testing.T, root string) *moduleIndex {
	t.Helper()
	idx := &moduleIndex{fset: token.NewFileSet(), types: map[string]typeDecl{}}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(p))
		if err != nil {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		file, err := parser.ParseFile(idx.fset, p, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		f := &srcFile{pkg: filepath.ToSlash(rel), file: file, imports: map[string]string{}}
		for _, im := range file.Imports {
			ip, _ := strconv.Unquote(im.Path.Value)
			name := path.Base(ip)
			if im.Name != nil {
				name = im.Name.Name
			}
			if ip == module {
				f.imports[name] = "."
			} else if strings.HasPrefix(ip, module+"/") {
				f.imports[name] = strings.TrimPrefix(ip, module+"/")
			} else {
				f.imports[name] = ""
			}
		}
		idx.files = append(idx.files, f)
		for _, decl := range file.Decls {
			if gd, ok := decl.(*ast.GenDecl); ok && gd.Tok == token.TYPE {
				for _, s := range gd.Specs {
					ts := s.(*ast.TypeSpec)
					idx.types[f.pkg+"."+ts.Name.Name] = typeDecl{f, ts}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(idx.types) < 100 {
		t.Fatalf("found %d type declarations under %s: is it the module root?", len(idx.types), root)
	}
	return idx
}

// resolve returns the declaration a type name refers to in f, or false if it is not one of
// this module's.
func (idx *moduleIndex) resolve(f *srcFile, e ast.Expr) (typeDecl, string, bool) {
	switch e := e.(type) {
	case *ast.Ident:
		d, ok := idx.types[f.pkg+"."+e.Name]
		return d, f.pkg + "." + e.Name, ok
	case *ast.SelectorExpr:
		x, ok := e.X.(*ast.Ident)
		if !ok {
			return typeDecl{}, "", false
		}
		pkg := f.imports[x.Name]
		if pkg == "" {
			return typeDecl{}, "", false
		}
		d, ok := idx.types[pkg+"."+e.Sel.Name]
		return d, pkg + "." + e.Sel.Name, ok
	case *ast.IndexExpr:
		return idx.resolve(f, e.X)
	case *ast.ParenExpr:
		return idx.resolve(f, e.X)
	}
	return typeDecl{}, "", false
}

// holds returns the method count and name of the widest interface a type expression holds
// directly or through pointers, slices, maps, channels and function signatures.
func (idx *moduleIndex) holds(f *srcFile, e ast.Expr) (int, string) {
	best, bestName := 0, ""
	consider := func(c int, name string) {
		if c > best {
			best, bestName = c, name
		}
	}
	var walk func(e ast.Expr)
	walk = func(e ast.Expr) {
		switch e := e.(type) {
		case *ast.Ident, *ast.SelectorExpr, *ast.IndexExpr:
			if d, name, ok := idx.resolve(f, e); ok {
				if c := idx.interfaceWidth(d, 0); c >= 0 {
					consider(c, name)
				}
			}
		case *ast.StarExpr:
			walk(e.X)
		case *ast.ArrayType:
			walk(e.Elt)
		case *ast.MapType:
			walk(e.Key)
			walk(e.Value)
		case *ast.ChanType:
			walk(e.Value)
		case *ast.Ellipsis:
			walk(e.Elt)
		case *ast.ParenExpr:
			walk(e.X)
		case *ast.InterfaceType:
			consider(idx.count(f, e, 0), "an interface literal")
		}
	}
	walk(e)
	return best, bestName
}

// interfaceWidth returns the number of methods of the interface d declares (following aliases
// and named types), or -1 if d is not an interface.
func (idx *moduleIndex) interfaceWidth(d typeDecl, depth int) int {
	if depth > 20 {
		return -1
	}
	switch ty := d.spec.Type.(type) {
	case *ast.InterfaceType:
		return idx.count(d.file, ty, depth+1)
	case *ast.Ident, *ast.SelectorExpr, *ast.IndexExpr:
		if next, _, ok := idx.resolve(d.file, ty); ok {
			return idx.interfaceWidth(next, depth+1)
		}
	}
	return -1
}

// count returns the number of distinct methods of an interface type, embedded ones included.
func (idx *moduleIndex) count(f *srcFile, it *ast.InterfaceType, depth int) int {
	names := map[string]bool{}
	idx.methods(f, it, names, depth)
	return len(names)
}

func (idx *moduleIndex) methods(f *srcFile, it *ast.InterfaceType, into map[string]bool, depth int) {
	if depth > 20 {
		return
	}
	for _, m := range it.Methods.List {
		if len(m.Names) > 0 {
			for _, n := range m.Names {
				into[n.Name] = true
			}
			continue
		}
		d, _, ok := idx.resolve(f, m.Type)
		for ok {
			if inner, isIface := d.spec.Type.(*ast.InterfaceType); isIface {
				idx.methods(d.file, inner, into, depth+1)
				break
			}
			d, _, ok = idx.resolve(d.file, d.spec.Type)
		}
	}
}
