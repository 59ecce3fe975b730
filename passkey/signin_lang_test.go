package passkey_test

import (
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/i18n"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/passkey"
	"github.com/proctorhq/proctor/school"
)

// choose picks lang with the pages' language switcher at school s.
func (b *browser) choose(s *school.School, lang string) {
	b.e.t.Helper()
	q := url.Values{"lang": {lang}, "return_to": {login.LoginPath}}
	if res := b.Get(s.Origin + login.LanguagePath + "?" + q.Encode()); res.Status != http.StatusSeeOther {
		b.e.t.Fatalf("choose %s: %d", lang, res.Status)
	}
}

// The passkey sign-in page, passwordless or as the second step, where passkeys work and where
// they do not, is in the member's language.
func TestPasskeySignInPageInLanguage(t *testing.T) {
	cat, err := i18n.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"ja", "zh-TW"} {
		t.Run(lang, func(t *testing.T) {
			e := newEnv(t)
			loc := cat.Localizer(lang, nil)
			check := func(what, page, want string, english ...string) {
				t.Helper()
				if !strings.Contains(page, `<html lang="`+lang+`"`) {
					t.Errorf("%s is not in %s:\n%s", what, lang, page)
				}
				if !strings.Contains(page, template.HTMLEscapeString(want)) {
					t.Errorf("%s in %s lacks %q:\n%s", what, lang, want, page)
				}
				for _, en := range english {
					if strings.Contains(page, en) {
						t.Errorf("%s in %s still says %q", what, lang, en)
					}
				}
			}
			b := e.browser()
			b.choose(e.a, lang)
			page := b.Get(e.a.Origin + passkey.SignInPath)
			check("passkey sign-in", page.Body, loc.Text("signin.passkey.heading", "School", e.a.Name),
				"Sign in with a passkey", "Your browser asks", "Sign in another way")
			b.choose(e.c, lang)
			numeric := b.Get(e.c.Origin + passkey.SignInPath)
			check("passkey sign-in at a numeric address", numeric.Body, loc.Text("signin.passkey.unavailable"), "Passkeys need the school")

			ann, _, _ := e.annWithKey()
			ann.choose(e.a, lang)
			stepUp := ann.Get(e.a.Origin + passkey.FactorPagePath + "?step_up=1&return_to=%2Faccount")
			check("passkey step-up", stepUp.Body, loc.Text("signin.passkey.step_up_heading"),
				"Confirm it is you", "Use a code instead", "Sign in with a passkey")
		})
	}
}
