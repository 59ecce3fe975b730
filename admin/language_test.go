package admin_test

import (
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/proctorhq/proctor/server/servertest/schools"
)

// signedInIn returns a browser signed in at school A as email that asks for lang.
func (e *env) signedInIn(email, lang string) *browser {
	e.t.Helper()
	b := e.signedIn(e.a, email)
	b.Lang = lang
	return b
}

// Every operator page, through the whole server, in the language the browser asks for: the
// page says its language, shows the catalogue's sentences in it and none of the English ones;
// its dates are written the language's way.
func TestPagesInTheBrowsersLanguage(t *testing.T) {
	started := time.Now().UTC().Format("2006")
	e := newEnv(t)
	cat := schools.Catalogue(t)
	en := cat.Localizer("en", nil)
	id := e.signedIn(e.a, ownerEmail).createPublic(e, "Study Buddy")
	student := e.memberID(studentEmail)
	school := e.a.Name
	// The pages date the members and the application, all made since the test started.
	year := time.Now().UTC().Format("2006")
	if year != started {
		t.Skip("New Year's midnight (UTC) passed while the members and the application were made: their year is either")
	}
	year += "年"
	for _, lang := range []string{"ja", "zh-TW"} {
		t.Run(lang, func(t *testing.T) {
			loc := cat.Localizer(lang, nil)
			b := e.signedInIn(ownerEmail, lang)
			form := b.Get(e.appsURL(e.a, "/new"))
			token := form.CSRF(t)
			// msg is a message of the page: each case names messages by key and values.
			type msg struct {
				key  string
				data []any
			}
			m := func(key string, data ...any) msg { return msg{key, data} }
			for _, tc := range []struct {
				name string
				page page
				// status is the page's; msgs must be there in the language, not in English.
				status int
				msgs   []msg
				// also must be on the page as they are (dates, names of things).
				also []string
			}{
				{"applications", b.Get(e.appsURL(e.a, "")), http.StatusOK,
					[]msg{m("admin.apps.title"), m("admin.apps.new"), m("admin.apps.public"), m("admin.apps.intro", "School", school)}, []string{year}},
				{"new application", form, http.StatusOK,
					[]msg{m("admin.app_new.title"), m("admin.app_new.create"), m("admin.app_new.scopes_hint"), m("admin.app_new.confidential"),
						m("scope.openid"), m("scope.account_read")}, nil},
				{"refused application", b.Post(e.appsURL(e.a, ""), appForm{name: " ", redirectURIs: "ftp://x.example/cb"}.values(token)), http.StatusUnprocessableEntity,
					[]msg{m("admin.app_new.invalid"), m("admin.field.name_missing"), m("admin.field.scopes_missing"),
						m("admin.field.uri_scheme", "URI", `"ftp://x.example/cb"`)}, nil},
				{"application", b.Get(e.appsURL(e.a, "/"+id)), http.StatusOK,
					[]msg{m("admin.app.delete"), m("admin.app.delete_text"), m("app.client_id"), m("scope.openid")}, []string{year}},
				{"deletion", b.Get(e.appsURL(e.a, "/"+id+"/delete")), http.StatusOK,
					[]msg{m("admin.app.delete_title", "App", "Study Buddy"), m("admin.app.delete_explanation"), m("admin.cancel")}, nil},
				{"secret", b.Post(e.appsURL(e.a, ""), appForm{name: "Grader " + lang, redirectURIs: callback, scopes: []string{"openid"}, confidential: true}.values(token)), http.StatusOK,
					[]msg{m("admin.secret.title_created"), m("admin.secret.copy_now"), m("admin.secret.done")}, nil},
				{"members", b.Get(e.membersURL(e.a, 0, "")), http.StatusOK,
					[]msg{m("admin.members.title"), m("admin.members.search_label"), m("admin.member.status.active"), m("member.last_sign_in")},
					[]string{loc.Text("admin.role.owner"), year}},
				{"member", b.Get(e.membersURL(e.a, student, "")), http.StatusOK,
					[]msg{m("admin.member.actions"), m("admin.action.roles.link"), m("admin.action.remove.link"), m("admin.action.sign_out.link")},
					[]string{loc.Text("admin.role.student")}},
				{"roles", b.Get(e.membersURL(e.a, student, "/roles")), http.StatusOK,
					[]msg{m("admin.action.roles.title", "Name", "Name of "+studentEmail), m("admin.action.roles.button"), m("admin.role.owner_label")}, nil},
				{"no role", b.Post(e.membersURL(e.a, student, "/roles"), url.Values{"csrf_token": {token}}), http.StatusUnprocessableEntity,
					[]msg{m("admin.refusal.no_role")}, nil},
				{"expired form", b.Post(e.membersURL(e.a, student, "/sign-out"), url.Values{"csrf_token": {"stale"}}), http.StatusForbidden,
					[]msg{m("admin.form_expired"), m("admin.action.sign_out.title", "Name", "Name of "+studentEmail)}, nil},
				{"security events", b.Get(eventsURL(e.a, nil)), http.StatusOK,
					[]msg{m("admin.events.title"), m("admin.events.show"), m("admin.events.any_kind"), m("admin.events.result.success"), m("admin.events.member_label")},
					[]string{year}},
				{"events filter", b.Get(eventsURL(e.a, url.Values{"kind": {"nonsense"}})), http.StatusBadRequest,
					[]msg{m("admin.events.bad_kind")}, nil},
				{"not an operator", e.signedInIn(studentEmail, lang).Get(e.membersURL(e.a, 0, "")), http.StatusForbidden,
					[]msg{m("admin.refused.message", "School", school)}, nil},
			} {
				p := tc.page
				if p.Status != tc.status {
					t.Errorf("%s: status %d, want %d\n%s", tc.name, p.Status, tc.status, p.Body)
					continue
				}
				if !strings.Contains(p.Body, `<html lang="`+lang+`"`) {
					t.Errorf("%s: the page does not say it is in %s", tc.name, lang)
				}
				for _, x := range tc.msgs {
					want, english := loc.Text(x.key, x.data...), en.Text(x.key, x.data...)
					if want == english || want == x.key {
						t.Fatalf("%s: %s has no %s translation", tc.name, x.key, lang)
					}
					if !strings.Contains(p.Body, html.EscapeString(want)) {
						t.Errorf("%s: no %q (%s) on the page", tc.name, want, x.key)
					}
					if strings.Contains(p.Body, html.EscapeString(english)) {
						t.Errorf("%s: the English %q is still on the page", tc.name, english)
					}
				}
				for _, s := range tc.also {
					if !strings.Contains(p.Body, html.EscapeString(s)) {
						t.Errorf("%s: no %q on the page", tc.name, s)
					}
				}
			}
		})
	}
	// The English pages stay as they were.
	p := e.signedIn(e.a, ownerEmail).Get(e.membersURL(e.a, 0, ""))
	if !strings.Contains(p.Body, `<html lang="en"`) || !strings.Contains(p.Body, "Search by e-mail or name") {
		t.Errorf("the English members page:\n%s", p.Body)
	}
}
