package authz_test

import (
	"net/http"
	"testing"

	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/scope"
	"github.com/proctorhq/proctor/server/servertest"
	"github.com/proctorhq/proctor/server/servertest/schools"
)

// speaking is a browser signed in at school t as email that has chosen lang with the pages'
// language switcher.
func (e *env) speaking(t *school.School, email, lang string) *browser {
	e.t.Helper()
	b := e.signedIn(t, email)
	b.ChooseLanguage(t, lang)
	return b
}

// The consent page and the authorization endpoint's refusals are in the member's language,
// scope descriptions included.
func TestAuthorizePagesInLanguage(t *testing.T) {
	cat := schools.Catalogue(t)
	e := newEnv(t, "sqlite")
	for _, lang := range []string{"ja", "zh-TW"} {
		t.Run(lang, func(t *testing.T) {
			loc := cat.Localizer(lang, nil)
			p := servertest.NewPKCE()
			student := e.speaking(e.a, studentEmail, lang)
			consent := student.authorize(e.a, servertest.AuthorizeParams(e.a, oauthClient(publicClient), p, "openid", "account:read"))
			if consent.Status != http.StatusOK {
				t.Fatalf("consent page: %d", consent.Status)
			}
			read, _ := scope.Lookup(scope.AccountRead)
			schools.InLanguage(t, "consent page", consent.Body, lang, loc.Text("consent.heading", "Client", "Study Buddy", "School", e.a.Name),
				"Allow ", read.Description, "Approve")
			schools.InLanguage(t, "consent page", consent.Body, lang, scope.Describe(loc, scope.AccountRead))

			operatorScopes := student.authorize(e.a, servertest.AuthorizeParams(e.a, oauthClient(opClient), p, "courses:read"))
			schools.InLanguage(t, "operator scopes asked of a student", operatorScopes.Body, lang,
				loc.Text("errors.authorize.operator_only", "School", e.a.Name), "You cannot authorize", "Only the school's owners")
			outsider := e.speaking(e.a, outsiderEmail, lang)
			noRole := outsider.authorize(e.a, servertest.AuthorizeParams(e.a, oauthClient(publicClient), p, "account:read"))
			schools.InLanguage(t, "a member without a role", noRole.Body, lang,
				loc.Text("errors.authorize.no_role", "School", e.a.Name), "You cannot authorize", "has no role")
			unknown := student.authorize(e.a, servertest.AuthorizeParams(e.a, oauthClient("no-such-client"), p, "account:read"))
			schools.InLanguage(t, "an unknown client", unknown.Body, lang, loc.Text("errors.authorize.failed_title"), "cannot be completed")
		})
	}
}
