package templates

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/proctorhq/proctor/server/servertest/schools"
)

var (
	// actionPattern matches a template action, which may span lines.
	actionPattern = regexp.MustCompile(`(?s)\{\{.*?\}\}`)
	// codePattern matches a <code> element, whose protocol names (client_secret_post, openid)
	// are the same in every language, and a <style> element, which holds no words.
	codePattern = regexp.MustCompile(`(?s)<code[^>]*>.*?</code>|<style[^>]*>.*?</style>`)
	// textAttrPattern matches the attributes whose value people read or hear.
	textAttrPattern = regexp.MustCompile(`\b(alt|title|placeholder|aria-label|aria-description|label)="([^"]*)"`)
	tagPattern      = regexp.MustCompile(`(?s)<[^>]*>`)
	entityPattern   = regexp.MustCompile(`&(#[0-9]+|#x[0-9a-fA-F]+|[a-zA-Z]+);`)
	// keyPattern matches a template's use of a message: {{t "login.title" ...}}.
	keyPattern = regexp.MustCompile(`\bt "([^"]+)"`)
	// goKeyPattern matches Go code's use of a message: loc.Text("login.failed", ...), or a key
	// kept as data to be written later (an error view's TitleKey: "errors.x.title", a JSON
	// refusal's key: "passkey.error.expired", a page's table of notices "added":
	// "passkey.notice.added"). A value in a table is taken for a key only when it starts with
	// one of the catalogue's families, so that Host: "a.example.test" is not one.
	goKeyPattern = goKeys(catalogueFamilies())
)

// Every word of every page and e-mail comes from the catalogue: outside template actions and
// <code> elements a template holds no letter, in text or in an attribute people read, and
// every message a template or Go code names exists.
func TestTemplatesUseCatalogue(t *testing.T) {
	cat := schools.Catalogue(t)
	for _, dir := range []string{"html", "mail"} {
		files, err := fs.Glob(os.DirFS("."), dir+"/*")
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			src := string(data)
			for _, m := range keyPattern.FindAllStringSubmatch(src, -1) {
				if !cat.Has(m[1]) {
					t.Errorf("%s: message %s is not in the catalogue", file, m[1])
				}
			}
			if words := literalWords(src, strings.HasSuffix(file, ".txt")); words != "" {
				t.Errorf("%s: words outside the catalogue: %q", file, words)
			}
		}
	}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != ".." {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, key := range goKeysIn(string(data)) {
			if !cat.Has(key) {
				t.Errorf("%s: message %s is not in the catalogue", path, key)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// literalWords returns the letters a template writes itself, outside its actions: the text
// between tags and the attributes people read (for an HTML template), or everything (for a
// plain-text mail).
func literalWords(src string, plain bool) string {
	src = actionPattern.ReplaceAllString(src, " ")
	var words []string
	if !plain {
		src = codePattern.ReplaceAllString(src, " ")
		for _, m := range textAttrPattern.FindAllStringSubmatch(src, -1) {
			words = append(words, letters(m[2]))
		}
		src = tagPattern.ReplaceAllString(src, " ")
		src = entityPattern.ReplaceAllString(src, " ")
	}
	words = append(words, letters(src))
	return strings.TrimSpace(strings.Join(slices.DeleteFunc(words, func(s string) bool { return s == "" }), " "))
}

// letters returns the runs of s that hold a letter.
func letters(s string) string {
	var out []string
	for _, f := range strings.Fields(s) {
		if strings.IndexFunc(f, unicode.IsLetter) >= 0 {
			out = append(out, f)
		}
	}
	return strings.Join(out, " ")
}

// The check above would pass on a template of nothing but actions whatever literalWords did;
// this shows it finds words where they hide.
func TestLiteralWordsFound(t *testing.T) {
	for _, tc := range []struct {
		src   string
		plain bool
		want  string
	}{
		{`<p>{{t "a.b"}}</p>`, false, ""},
		{`<p>{{t "a.b"}} Sign in</p>`, false, "Sign in"},
		{`<img alt="Logo" src="{{.X}}">`, false, "Logo"},
		{`<input placeholder="you@example.com">`, false, "you@example.com"},
		{`<dd><code>client_secret_post</code> &middot; {{.X}}</dd>`, false, ""},
		{"{{define \"text\"}}Hello {{.Name}},{{end}}", true, "Hello"},
		{`<style>a { color: {{.C}}; }</style><p>Hi</p>`, false, "Hi"},
		{`<a href="/login?x=y" class="button primary">{{t "a.b"}}</a>`, false, ""},
	} {
		if got := literalWords(tc.src, tc.plain); got != tc.want {
			t.Errorf("literalWords(%q) = %q, want %q", tc.src, got, tc.want)
		}
	}
}

// The Go key pattern finds a message however Go code names it, and nothing else.
func TestGoKeyPattern(t *testing.T) {
	for src, want := range map[string]string{
		`loc.Text("login.failed")`:                    "login.failed",
		`loc.T("a.b", "Count", 2)`:                    "a.b",
		`ErrorView{TitleKey: "errors.x.title"}`:       "errors.x.title",
		`&jsonError{code: "x", key: "passkey.error"}`: "passkey.error",
		`KeyPrefix: "proctor:login:"`:                 "",
		`"added":   "passkey.notice.added",`:          "passkey.notice.added",
		`ActionRoles: "admin.notice.roles",`:          "admin.notice.roles",
		`Host: "a.example.test"`:                      "",
		`check: "oauth.used_code_without_pairs"`:      "",
		`strings.Cut(s, "a.b")`:                       "",
	} {
		got := strings.Join(goKeysIn(src), " ")
		if got != want {
			t.Errorf("%s: found %q, want %q", src, got, want)
		}
	}
}

// catalogueFamilies returns the first part of every catalogue key: the names of the files in
// i18n/catalog (account, admin, ...).
func catalogueFamilies() []string {
	files, err := filepath.Glob(filepath.Join("..", "i18n", "catalog", "*.yaml"))
	if err != nil || len(files) == 0 {
		panic("templates: no catalogue files under ../i18n/catalog")
	}
	var families []string
	for _, f := range files {
		family, _, _ := strings.Cut(filepath.Base(f), ".")
		if !slices.Contains(families, family) {
			families = append(families, family)
		}
	}
	return families
}

// goKeys builds goKeyPattern: its first group is a key Go code writes or keeps in a field
// named for one, its second a key kept as a value of a table, which must start with a family.
func goKeys(families []string) *regexp.Regexp {
	const key = `[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+`
	return regexp.MustCompile(`(?:\.(?:Text|T)\(|\b(?:\w*Key|key):\s*)"(` + key + `)"` +
		`|(?:\b\w+|"[^"\n]*"):\s*"((?:` + strings.Join(families, "|") + `)\.[a-z0-9_]+(?:\.[a-z0-9_]+)*)"`)
}

// goKeysIn returns the catalogue keys goKeyPattern finds in src, in order.
func goKeysIn(src string) []string {
	var keys []string
	for _, m := range goKeyPattern.FindAllStringSubmatch(src, -1) {
		keys = append(keys, m[1]+m[2])
	}
	return keys
}
