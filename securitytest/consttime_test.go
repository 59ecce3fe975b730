package securitytest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode"
)

// sensitiveWords are the last words of names that hold a secret or something compared like
// one: a value of such a name must be compared with crypto/subtle or hmac.Equal.
var sensitiveWords = map[string]bool{
	"secret": true, "secrets": true, "token": true, "tokens": true, "hash": true, "csrf": true,
	"key": true, "apikey": true, "mac": true, "hmac": true, "signature": true, "sig": true,
	"password": true, "passwd": true, "pw": true, "verifier": true, "digest": true,
}

// variableTimeFuncs compare their arguments in time that depends on where they first differ.
var variableTimeFuncs = map[string]bool{
	"bytes.Equal": true, "bytes.Compare": true, "strings.Compare": true, "strings.EqualFold": true,
	"bytes.EqualFold": true, "reflect.DeepEqual": true, "slices.Equal": true,
}

// constantTimeAllowed are comparisons the scan flags that are not comparisons of secrets, each
// with the reason. Keys are "path: expression" as the scan prints them.
var constantTimeAllowed = map[string]string{
	`school/school.go: config.HostKey(scheme, u.Host) == t.Host`:        "compares a URL's host with the school's in School.SameOrigin (public values: a resource indicator, an Origin header, a grant's resource; HostKey names a map key form)",
	"bench/flow/form.go: a.Key == name":                                 "an HTML attribute's name in the load client's page parser",
	"server/servertest/http.go: a.Key == name":                          "an HTML attribute's name in the test environment's form parser",
	"bench/child.go: int64(k) == key":                                   "an auxiliary-vector entry type (AT_*) in the benchmark's process reader",
	"storage/conformance/clients.go: got.SecretHash != conf.SecretHash": "the storage conformance suite checks that a stored hash round-trips (test code, no secret)",
	"storage/conformance/grants.go: sig != old.AccessSignature":         "the storage conformance suite checks which token pair a lookup returned (test code, no secret)",
	`account/recovery.go: pw != r.PostForm.Get("password2")`:            "the two fields of one form, both typed by the person posting it: nothing stored is compared",
	`cmd/proctor/members_invite.go: withoutPassword == (email != "")`:   "a command-line flag (a bool), not a password",
}

// words splits an identifier into lower-case words: camelCase, acronyms and snake_case.
func words(name string) []string {
	var out []string
	rs := []rune(name)
	start := 0
	flush := func(end int) {
		if end > start {
			out = append(out, strings.ToLower(string(rs[start:end])))
		}
		start = end
	}
	for i := 0; i < len(rs); i++ {
		switch {
		case rs[i] == '_':
			flush(i)
			start = i + 1
		case i > start && unicode.IsUpper(rs[i]) &&
			(unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1])):
			flush(i)
		}
	}
	flush(len(rs))
	return out
}

// sensitive reports whether a name's last word says it holds a secret.
func sensitive(name string) bool {
	w := words(name)
	return len(w) > 0 && sensitiveWords[w[len(w)-1]]
}

// fileScope is what the scan knows about one file: its imports and its package's constants.
type fileScope struct {
	imports map[string]bool
	consts  map[string]bool
}

// operandName returns the name an operand is read by ("" when it has none), looking through
// parentheses, dereferences, indexing and conversions.
func operandName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return x.Sel.Name
	case *ast.ParenExpr:
		return operandName(x.X)
	case *ast.StarExpr:
		return operandName(x.X)
	case *ast.IndexExpr:
		return operandName(x.X)
	case *ast.SliceExpr:
		return operandName(x.X)
	case *ast.CallExpr:
		if conversion(x) && len(x.Args) == 1 {
			return operandName(x.Args[0])
		}
		return operandName(x.Fun)
	}
	return ""
}

// conversion reports whether call converts to string or a byte slice.
func conversion(call *ast.CallExpr) bool {
	switch f := call.Fun.(type) {
	case *ast.Ident:
		return f.Name == "string"
	case *ast.ArrayType:
		id, ok := f.Elt.(*ast.Ident)
		return ok && f.Len == nil && (id.Name == "byte" || id.Name == "rune")
	}
	return false
}

// constantLike reports whether an operand is a literal, nil, a boolean, a length, a constant
// of the package, or a name from another package (its constants and sentinel values):
// comparing with one of those leaks nothing about a secret.
func constantLike(e ast.Expr, sc fileScope) bool {
	switch x := e.(type) {
	case *ast.BasicLit:
		return true
	case *ast.Ident:
		return x.Name == "nil" || x.Name == "true" || x.Name == "false" || sc.consts[x.Name]
	case *ast.SelectorExpr:
		id, ok := x.X.(*ast.Ident)
		return ok && sc.imports[id.Name]
	case *ast.ParenExpr:
		return constantLike(x.X, sc)
	case *ast.UnaryExpr:
		return constantLike(x.X, sc)
	case *ast.CallExpr:
		if id, ok := x.Fun.(*ast.Ident); ok && (id.Name == "len" || id.Name == "cap") {
			return true
		}
		if conversion(x) && len(x.Args) == 1 {
			return constantLike(x.Args[0], sc)
		}
	}
	return false
}

// importNames returns the names a file's imports are used by (the last path element, or the
// one before a /vN major-version element, without a ".vN" or "go-" decoration, unless renamed).
func importNames(f *ast.File) map[string]bool {
	out := map[string]bool{}
	for _, im := range f.Imports {
		if im.Name != nil {
			out[im.Name.Name] = true
			continue
		}
		elems := strings.Split(strings.Trim(im.Path.Value, `"`), "/")
		name := elems[len(elems)-1]
		if len(elems) > 1 && len(name) > 1 && name[0] == 'v' && strings.Trim(name[1:], "0123456789") == "" {
			name = elems[len(elems)-2]
		}
		if i := strings.Index(name, ".v"); i > 0 {
			name = name[:i]
		}
		out[strings.TrimPrefix(name, "go-")] = true
	}
	return out
}

// variableTimeComparisons returns the comparisons of sensitive names in the non-test Go files
// under root, as "path: expression".
func variableTimeComparisons(t *testing.T, root string) []string {
	t.Helper()
	fset := token.NewFileSet()
	pkgs := map[string][]*ast.File{}
	paths := map[*ast.File]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", "testdata", "vendor":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		paths[f] = filepath.ToSlash(rel)
		pkgs[filepath.Dir(p)] = append(pkgs[filepath.Dir(p)], f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, files := range pkgs {
		consts := map[string]bool{}
		for _, f := range files {
			for _, d := range f.Decls {
				if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST {
					for _, s := range g.Specs {
						for _, n := range s.(*ast.ValueSpec).Names {
							consts[n.Name] = true
						}
					}
				}
			}
		}
		for _, f := range files {
			sc := fileScope{imports: importNames(f), consts: consts}
			report := func(n ast.Node) {
				found = append(found, paths[f]+": "+exprString(fset, n.(ast.Expr)))
			}
			ast.Inspect(f, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.BinaryExpr:
					if x.Op != token.EQL && x.Op != token.NEQ {
						return true
					}
					if constantLike(x.X, sc) || constantLike(x.Y, sc) {
						return true
					}
					if sensitive(operandName(x.X)) || sensitive(operandName(x.Y)) {
						report(x)
					}
				case *ast.CallExpr:
					sel, ok := x.Fun.(*ast.SelectorExpr)
					if !ok {
						return true
					}
					pkg, ok := sel.X.(*ast.Ident)
					if !ok || !variableTimeFuncs[pkg.Name+"."+sel.Sel.Name] || !sc.imports[pkg.Name] {
						return true
					}
					hit := false
					for _, a := range x.Args {
						if constantLike(a, sc) {
							return true
						}
						hit = hit || sensitive(operandName(a))
					}
					if hit {
						report(x)
					}
				}
				return true
			})
		}
	}
	sort.Strings(found)
	return found
}

// TestSecretsComparedInConstantTime scans the repository's Go sources (tests excluded) for ==,
// !=, bytes.Equal and the like applied to names that say they hold a secret, token, hash, CSRF
// token, key, MAC, signature, password or verifier. Such values must be compared with
// crypto/subtle.ConstantTimeCompare or hmac.Equal; the rare comparison that is not of a secret
// is listed in constantTimeAllowed with the reason.
func TestSecretsComparedInConstantTime(t *testing.T) {
	found := variableTimeComparisons(t, "..")
	for _, c := range found {
		if _, ok := constantTimeAllowed[c]; !ok {
			t.Errorf("variable-time comparison of a secret-named value: %s (use crypto/subtle or hmac.Equal, or allow it in constantTimeAllowed with a reason)", c)
		}
	}
	for c := range constantTimeAllowed {
		if !containsString(found, c) {
			t.Logf("constantTimeAllowed lists %q, which the scan no longer finds: it can go", c)
		}
	}
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// TestConstantTimeScanFindsComparisons: the scan flags what it should and leaves the rest.
func TestConstantTimeScanFindsComparisons(t *testing.T) {
	dir := t.TempDir()
	src := `package p

import (
	"bytes"
	"crypto/subtle"
)

const Kind = "k"

type S struct{ SecretHash, Name string; CSRFToken []byte }

func f(s S, got, token string, apiKey, mac []byte, kind string) bool {
	_ = s.SecretHash == got                           // flagged
	_ = token != got                                  // flagged
	_ = bytes.Equal(mac, []byte(got))                 // flagged
	_ = string(apiKey) == got                         // flagged
	_ = bytes.Equal(s.CSRFToken, nil)                 // constant: not flagged
	_ = token == ""                                   // literal: not flagged
	_ = len(token) == 0                               // length: not flagged
	_ = kind == Kind                                  // not a secret's name
	_ = s.Name == got                                 // not a secret's name
	return subtle.ConstantTimeCompare(apiKey, mac) == 1 // the right way
}
`
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	got := variableTimeComparisons(t, dir)
	want := []string{
		"p.go: bytes.Equal(mac, []byte(got))",
		"p.go: s.SecretHash == got",
		"p.go: string(apiKey) == got",
		"p.go: token != got",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("scan found:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for name, want := range map[string][]string{
		"CSRFToken": {"csrf", "token"}, "apiKey": {"api", "key"}, "TokenEndpointAuthMethod": {"token", "endpoint", "auth", "method"},
		"session_id": {"session", "id"}, "HMACKey": {"hmac", "key"},
	} {
		if got := words(name); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("words(%q) = %q, want %q", name, got, want)
		}
	}
}
