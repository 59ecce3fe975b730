package login

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/i18n"
	"github.com/proctorhq/proctor/server/servertest/schools"
)

// A page is in the member's choice, else the browser's language, else the school's locale;
// the switcher records the choice and goes back to the page, never off the origin.
func TestPageLanguage(t *testing.T) {
	e := newEnv(t, nil)
	e.schools[hostB].Locale = "ja"

	plain := e.browser(hostA, false)
	if got := schools.HTMLLang(plain.do(http.MethodGet, LoginPath, nil).body); got != i18n.Default {
		t.Errorf("no preference at a school without a locale: lang %q", got)
	}
	if got := schools.HTMLLang(e.browser(hostB, false).do(http.MethodGet, LoginPath, nil).body); got != "ja" {
		t.Errorf("no preference at a ja school: lang %q", got)
	}
	b := e.browser(hostB, false)
	b.lang = "zh-TW,zh;q=0.9"
	if got := schools.HTMLLang(b.do(http.MethodGet, LoginPath, nil).body); got != "zh-TW" {
		t.Errorf("Accept-Language zh-TW at a ja school: lang %q", got)
	}

	// The switcher's links on the page name every language and come back to the page.
	page := b.do(http.MethodGet, LoginPath+"?return_to=%2Faccount", nil).body
	link := "/language?" + url.Values{"lang": {"en"}, "return_to": {LoginPath + "?return_to=%2Faccount"}}.Encode()
	if !strings.Contains(page, `href="`+strings.ReplaceAll(link, "&", "&amp;")+`"`) {
		t.Fatalf("no switcher link %s in the page", link)
	}
	res := b.do(http.MethodGet, link, nil)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != LoginPath+"?return_to=%2Faccount" {
		t.Fatalf("switch: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	if c := res.cookie(LanguageCookie); c == nil || c.Value != "en" || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode {
		t.Fatalf("switch cookie %+v", c)
	}
	if got := schools.HTMLLang(b.do(http.MethodGet, LoginPath, nil).body); got != "en" {
		t.Errorf("after choosing English the browser's zh-TW still wins: lang %q", got)
	}

	// An unknown language changes nothing; a return_to off the origin goes to the default.
	res = b.do(http.MethodGet, LanguagePath+"?lang=xx&return_to=//evil.example/", nil)
	if res.cookie(LanguageCookie) != nil || res.Header.Get("Location") != DefaultReturnTo {
		t.Errorf("unknown language: cookie %v, Location %q", res.cookie(LanguageCookie), res.Header.Get("Location"))
	}

	// Over https the cookie is a "__Host-" one, like every cookie of these pages.
	s := e.browser(hostA, true)
	if c := s.do(http.MethodGet, LanguagePath+"?lang=ja&return_to=/login", nil).cookie(HostPrefix + LanguageCookie); c == nil || !c.Secure {
		t.Errorf("https switch cookie %+v", c)
	}
	if got := schools.HTMLLang(s.do(http.MethodGet, LoginPath, nil).body); got != "ja" {
		t.Errorf("https: lang %q after choosing ja", got)
	}
}
