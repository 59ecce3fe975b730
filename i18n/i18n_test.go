package i18n

import (
	"context"
	"testing"
	"testing/fstest"
	"time"
)

// mustLoad loads the embedded catalogue; one that does not load fails the test.
func mustLoad(t *testing.T) *Catalog {
	t.Helper()
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Every language has every message of the source language, and no message the source
// language lacks (a key left behind when its English was removed or renamed).
func TestCatalogueComplete(t *testing.T) {
	c := mustLoad(t)
	if len(c.keys[Default]) == 0 {
		t.Fatal("the source language has no messages")
	}
	for _, l := range Supported[1:] {
		for id := range c.keys[Default] {
			if !c.keys[l.Tag][id] {
				t.Errorf("%s lacks %s", l.Tag, id)
			}
		}
		for id := range c.keys[l.Tag] {
			if !c.keys[Default][id] {
				t.Errorf("%s has %s, which English does not", l.Tag, id)
			}
		}
	}
}

// The completeness test above would pass on a loader that dropped what it read; this one
// shows a missing key is seen, and that a missing translation falls back to English.
func TestMissingKeyFound(t *testing.T) {
	c, err := load(fstest.MapFS{
		"catalog/a.en.yaml": {Data: []byte("x.one: One\nx.two: Two\n")},
		"catalog/a.ja.yaml": {Data: []byte("x.one: 一\n")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !c.keys["ja"]["x.one"] || c.keys["ja"]["x.two"] {
		t.Fatalf("keys = %v", c.keys)
	}
	ja := c.Localizer("ja", nil)
	if got := ja.Text("x.one"); got != "一" {
		t.Errorf("x.one = %q", got)
	}
	if got := ja.Text("x.two"); got != "Two" {
		t.Errorf("x.two falls back to %q, want the English", got)
	}
	if _, err := ja.T("x.three"); err == nil {
		t.Error("a key no language has is not an error")
	}
	if _, err := load(fstest.MapFS{"catalog/a.fr.yaml": {Data: []byte("x: y\n")}}); err == nil {
		t.Error("a catalogue of an unsupported language loaded")
	}
	if _, err := load(fstest.MapFS{
		"catalog/a.en.yaml": {Data: []byte("x: y\n")},
		"catalog/b.en.yaml": {Data: []byte("x: z\n")},
	}); err == nil {
		t.Error("a key in two files loaded")
	}
}

func TestChoose(t *testing.T) {
	c := mustLoad(t)
	for _, tc := range []struct{ cookie, accept, school, want string }{
		{"", "", "", "en"},
		{"", "", "zh-TW", "zh-TW"},
		{"", "ja", "zh-TW", "ja"},
		{"", "ja-JP,ja;q=0.9,en;q=0.5", "", "ja"},
		{"", "zh-Hant-TW", "", "zh-TW"},
		{"", "zh-TW;q=0.8,en;q=0.9", "", "en"},
		{"", "fr-FR,fr;q=0.9", "ja", "ja"},  // no supported language in the header
		{"en", "ja", "zh-TW", "en"},         // the member's choice wins
		{"xx", "ja", "", "ja"},              // a cookie naming no language is ignored
		{"", "not a header;;;", "ja", "ja"}, // a malformed header is ignored
	} {
		if got := c.Choose(tc.cookie, tc.accept, tc.school); got != tc.want {
			t.Errorf("Choose(%q, %q, %q) = %q, want %q", tc.cookie, tc.accept, tc.school, got, tc.want)
		}
	}
}

func TestDates(t *testing.T) {
	c := mustLoad(t)
	taipei, err := time.LoadLocation("Asia/Taipei")
	if err != nil {
		t.Skip("no time zone database:", err)
	}
	at := time.Date(2026, 11, 26, 13, 5, 0, 0, time.UTC)
	for _, tc := range []struct{ lang, want string }{
		{"en", "26 Nov 2026, 21:05 CST"},
		{"zh-TW", "2026年11月26日 21:05 CST"},
		{"ja", "2026年11月26日 21:05 CST"},
	} {
		if got := c.Localizer(tc.lang, taipei).DateTime(at); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.lang, got, tc.want)
		}
	}
	if got := c.Localizer("ja", nil).Date(at); got != "2026年11月26日" {
		t.Errorf("ja date in UTC = %q", got)
	}
}

func TestContext(t *testing.T) {
	if got := FromContext(context.Background()).Lang(); got != Default {
		t.Errorf("a context without a localizer gives %q", got)
	}
	c := mustLoad(t)
	if got := FromContext(NewContext(context.Background(), c.Localizer("ja", nil))).Lang(); got != "ja" {
		t.Errorf("got %q", got)
	}
}
