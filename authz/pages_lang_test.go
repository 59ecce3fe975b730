package authz_test

import (
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/i18n"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/scope"
)

// speaking is a browser signed in at school t as email that has chosen lang with the pages'
// language switcher.
func (e *env) speaking(t *school.School, email, lang string) *browser {
	e.t.Helper()
	b := e.signedIn(t, email)
	q := url.Values{"lang": {lang}, "return_to": {login.LoginPath}}
	if res := b.Get(e.url(t, login.LanguagePath+"?"+q.Encode())); res.Status != http.StatusSeeOther {
		e.t.Fatalf("choose %s: %d", lang, res.Status)
	}
	return b
}

// The consent page and the authorization endpoint's refusals are in the member's language,
// scope descriptions included.
func TestAuthorizePagesInLanguage(t *testing.T) {
	cat, err := i18n.Load()
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, "sqlite")
	for _, lang := range []string{"ja", "zh-TW"} {
		t.Run(lang, func(t *testing.T) {
			loc := cat.Localizer(lang, nil)
			p := newPKCE()
			student := e.speaking(e.a, studentEmail, lang)
			consent := student.authorize(e.a, e.authorizeParams(e.a, publicClient, p, "openid", "account:read"))
			if consent.Status != http.StatusOK {
				t.Fatalf("consent page: %d", consent.Status)
			}
			read, _ := scope.Lookup(scope.AccountRead)
			checkPage(t, lang, "consent page", consent.Body, loc.Text("consent.heading", "Client", "Study Buddy", "School", e.a.Name),
				"Allow ", read.Description, "Approve")
			checkPage(t, lang, "consent page", consent.Body, scope.Describe(loc, scope.AccountRead))

			operatorScopes := student.authorize(e.a, e.authorizeParams(e.a, opClient, p, "courses:read"))
			checkPage(t, lang, "operator scopes asked of a student", operatorScopes.Body,
				loc.Text("errors.authorize.operator_only", "School", e.a.Name), "You cannot authorize", "Only the school's owners")
			outsider := e.speaking(e.a, outsiderEmail, lang)
			noRole := outsider.authorize(e.a, e.authorizeParams(e.a, publicClient, p, "account:read"))
			checkPage(t, lang, "a member without a role", noRole.Body,
				loc.Text("errors.authorize.no_role", "School", e.a.Name), "You cannot authorize", "has no role")
			unknown := student.authorize(e.a, e.authorizeParams(e.a, "no-such-client", p, "account:read"))
			checkPage(t, lang, "an unknown client", unknown.Body, loc.Text("errors.authorize.failed_title"), "cannot be completed")
		})
	}
}

// checkPage checks that page is in lang (its <html lang>), holds want and none of english.
func checkPage(t *testing.T, lang, what, page, want string, english ...string) {
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
