package schools_test

import (
	"fmt"
	"testing"

	"github.com/proctorhq/proctor/server/servertest/schools"
)

// failures records what a check reports instead of failing the test.
type failures struct {
	testing.TB
	got []string
}

func (f *failures) Helper() {}

func (f *failures) Errorf(format string, args ...any) {
	f.got = append(f.got, fmt.Sprintf(format, args...))
}

// The language checks fail on a page in another language, on a missing sentence (escaped as
// the page writes it, for InLanguage) and on English left in the page, and pass a page that
// is all in the language.
func TestLanguageChecks(t *testing.T) {
	const page = `<html lang="ja"><p>ようこそ &amp; さようなら</p><p>Back</p></html>`
	for _, tc := range []struct {
		name  string
		check func(tb testing.TB)
		fails int
	}{
		{"in the language", func(tb testing.TB) { schools.InLanguage(tb, "p", page, "ja", "ようこそ & さようなら") }, 0},
		{"another language", func(tb testing.TB) { schools.InLanguage(tb, "p", page, "zh-TW", "ようこそ") }, 1},
		{"a missing sentence", func(tb testing.TB) { schools.InLanguage(tb, "p", page, "ja", "またね") }, 1},
		{"English left", func(tb testing.TB) { schools.InLanguage(tb, "p", page, "ja", "ようこそ", "Back", "Next") }, 1},
		{"pieces as written", func(tb testing.TB) { schools.PageIn(tb, "p", page, "ja", []string{"<p>ようこそ &amp;"}, nil) }, 0},
		{"pieces missing and English", func(tb testing.TB) { schools.PageIn(tb, "p", page, "ja", []string{"qq", "zz"}, []string{"Back"}) }, 3},
	} {
		f := &failures{TB: t}
		tc.check(f)
		if len(f.got) != tc.fails {
			t.Errorf("%s: %d failures, want %d: %q", tc.name, len(f.got), tc.fails, f.got)
		}
	}
	if got := schools.HTMLLang(page); got != "ja" {
		t.Errorf("HTMLLang = %q", got)
	}
}
