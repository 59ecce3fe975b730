package passkey_test

import (
	"encoding/json"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/passkey"
	"github.com/proctorhq/proctor/server/servertest"
	"github.com/proctorhq/proctor/server/servertest/schools"
)

// The refusals of the passkey endpoints, which the pages' script shows to the member, are in the
// request's language; their codes are the same in every language.
func TestJSONErrorsInLanguage(t *testing.T) {
	cat := schools.Catalogue(t)
	e := newEnv(t)
	ann := e.browser()
	ann.SignIn(e.a, e.ann.Email)
	atNumeric := e.browser()
	atNumeric.SignIn(e.c, e.ann.Email)
	numericCSRF := atNumeric.SessionCSRF(e.c)
	stranger := e.browser()
	formToken := attr(t, stranger.Get(e.a.URL(passkey.SignInPath)).Body, "data-csrf")

	for _, tc := range []struct {
		name   string
		br     *browser
		url    string
		form   url.Values
		status int
		code   string
		key    string
		en     string
	}{
		{"stale CSRF token", ann, e.a.URL(passkey.RegisterBeginPath), url.Values{"csrf_token": {"wrong"}},
			http.StatusForbidden, "expired", "passkey.error.expired", "This page has expired. Reload it and try again."},
		{"no session", stranger, e.a.URL(passkey.RegisterBeginPath), url.Values{"csrf_token": {"x"}},
			http.StatusUnauthorized, "signed_out", "passkey.error.signed_out", "You are no longer signed in. Sign in again and retry."},
		{"numeric address", atNumeric, e.c.URL(passkey.RegisterBeginPath), url.Values{"csrf_token": {numericCSRF}},
			http.StatusConflict, "unavailable", "passkey.error.unavailable", "Passkeys cannot be used at this address."},
		{"no ceremony", stranger, e.a.URL(passkey.SignInFinishPath), url.Values{"csrf_token": {formToken}, "response": {"{}"}},
			http.StatusBadRequest, "refused", "passkey.error.refused", "That passkey could not be used. Please try again."},
	} {
		for _, lang := range []string{"en", "ja", "zh-TW"} {
			res := tc.br.in(lang, http.MethodPost, tc.url, tc.form)
			var got errorBody
			if err := json.Unmarshal([]byte(res.Body), &got); err != nil || res.Status != tc.status || got.Error != tc.code {
				t.Errorf("%s in %s: %d %v\n%s", tc.name, lang, res.Status, err, res.Body)
				continue
			}
			want := cat.Localizer(lang, nil).Text(tc.key)
			if lang == "en" && want != tc.en {
				t.Errorf("%s: the English sentence is %q, want %q", tc.name, want, tc.en)
			}
			if got.Description != want || (lang != "en" && strings.Contains(got.Description, tc.en)) {
				t.Errorf("%s in %s says %q, want %q", tc.name, lang, got.Description, want)
			}
		}
	}
	// Japanese, written out, so that a catalogue falling back to English is noticed.
	res := ann.in("ja", http.MethodPost, e.a.URL(passkey.RegisterBeginPath), url.Values{"csrf_token": {"wrong"}})
	if got := jsonBody[errorBody](t, res).Description; got != "このページの有効期限が切れました。ページを再読み込みしてから、もう一度お試しください。" {
		t.Errorf("expired in Japanese: %q", got)
	}
}

// The pages that load the passkey script carry its sentences (a cancelled ceremony, a device
// that holds a passkey already, a browser that cannot) in the member's language, for the script
// to show; none of them in English remains.
func TestScriptSentencesInLanguage(t *testing.T) {
	cat := schools.Catalogue(t)
	english := []string{
		"The passkey was not used. Try again when you are ready.",
		"This device already holds a passkey for your account here.",
		"Your browser could not use a passkey here.",
		"Something went wrong. Please try again.",
		"This browser cannot use passkeys.",
	}
	sentences := map[string]string{
		"data-say-cancelled":   "passkey.script.cancelled",
		"data-say-exists":      "passkey.script.exists",
		"data-say-browser":     "passkey.script.browser_failed",
		"data-say-failed":      "passkey.script.failed",
		"data-say-unsupported": "passkey.script.unsupported",
	}
	e := newEnv(t)
	ann, _, _ := e.annWithKey()
	stranger := e.browser()
	pages := []struct {
		name string
		br   *browser
		url  string
	}{
		{"passkeys", ann, e.a.URL(passkey.AccountPath)},
		{"passkey sign-in", stranger, e.a.URL(passkey.SignInPath)},
		{"passkey step-up", ann, e.a.URL(passkey.FactorPagePath + "?step_up=1&return_to=%2Faccount")},
	}
	for _, lang := range []string{"en", "ja", "zh-TW"} {
		loc := cat.Localizer(lang, nil)
		for _, p := range pages {
			page := p.br.in(lang, http.MethodGet, p.url, nil)
			if page.Status != http.StatusOK || servertest.HTMLLang(page.Body) != lang {
				t.Errorf("%s in %s: %d, lang %q", p.name, lang, page.Status, servertest.HTMLLang(page.Body))
				continue
			}
			for name, key := range sentences {
				want := loc.Text(key)
				if got := attr(t, page.Body, name); got != want {
					t.Errorf("%s in %s: %s=%q, want %q", p.name, lang, name, got, want)
				}
				if !strings.Contains(page.Body, name+`="`+template.HTMLEscapeString(want)+`"`) {
					t.Errorf("%s in %s: %s not written as %q", p.name, lang, name, want)
				}
			}
			for _, en := range english {
				if strings.Contains(page.Body, en) != (lang == "en") {
					t.Errorf("%s in %s: %q present: %v", p.name, lang, en, lang != "en")
				}
			}
		}
	}
	if got := attr(t, ann.in("ja", http.MethodGet, e.a.URL(passkey.AccountPath), nil).Body, "data-say-cancelled"); got != "パスキーは使用されませんでした。準備ができたら、もう一度お試しください。" {
		t.Errorf("the cancelled sentence in Japanese: %q", got)
	}
}
