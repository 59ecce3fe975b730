package schools

import (
	"html/template"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/i18n"
)

// Catalogue loads the message catalogue the server renders with; one that does not load fails
// the test.
func Catalogue(t testing.TB) *i18n.Catalog {
	t.Helper()
	cat, err := i18n.Load()
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// HTMLLang returns the lang attribute of a page's <html> element ("" without one).
func HTMLLang(page string) string {
	_, rest, ok := strings.Cut(page, `<html lang="`)
	if !ok {
		return ""
	}
	lang, _, _ := strings.Cut(rest, `"`)
	return lang
}

// InLanguage checks that page (what names it in failures) is in lang by its <html lang>, that it
// holds the sentence want as the page writes it (HTML-escaped), and none of the English
// sentences of the page: a page half translated fails on the English it still says.
func InLanguage(t testing.TB, what, page, lang, want string, english ...string) {
	t.Helper()
	PageIn(t, what, page, lang, []string{template.HTMLEscapeString(want)}, english)
}

// PageIn checks that page (what names it in failures) is in lang by its <html lang>, that it
// holds every piece of want as written (markup included) and none of the English sentences
// english. A page in the wrong language is reported once, with no check of its sentences.
func PageIn(t testing.TB, what, page, lang string, want, english []string) {
	t.Helper()
	if got := HTMLLang(page); got != lang {
		t.Errorf("%s in %s: <html lang=%q>\n%s", what, lang, got, page)
		return
	}
	for _, w := range want {
		if !strings.Contains(page, w) {
			t.Errorf("%s in %s lacks %q:\n%s", what, lang, w, page)
		}
	}
	for _, en := range english {
		if strings.Contains(page, en) {
			t.Errorf("%s in %s still says %q", what, lang, en)
		}
	}
}
