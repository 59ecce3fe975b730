package login

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/proctorhq/proctor/factor"
	"github.com/proctorhq/proctor/server/servertest/schools"
)

// pageLanguages are the languages besides English every page of the sign-in family is checked
// in.
var pageLanguages = []string{"ja", "zh-TW"}

// oneFactor stands in for package mfa: every member has TOTP, and no code is right.
type oneFactor struct{}

func (oneFactor) Summary(context.Context, int64) (factor.Summary, error) {
	return factor.Summary{TOTP: true}, nil
}

func (oneFactor) VerifyCode(context.Context, int64, string) (factor.Kind, bool, error) {
	return factor.KindTOTP, false, nil
}

func (oneFactor) MarkSessionFactor(context.Context, string, []string, time.Time) error { return nil }

// Every page of signing in and out, rendered through the handler for a browser that asks for
// Japanese or Chinese, is in that language from its title to its messages.
func TestSignInPagesInLanguage(t *testing.T) {
	cat := schools.Catalogue(t)
	const school = "School A"
	for _, lang := range pageLanguages {
		t.Run(lang, func(t *testing.T) {
			loc := cat.Localizer(lang, nil)
			e := newEnv(t, nil)
			b := e.browser(hostA, false)
			b.lang = lang

			form := b.do(http.MethodGet, LoginPath, nil)
			schools.InLanguage(t, "sign-in form", form.body, lang, loc.Text("signin.heading", "School", school),
				"<title>Sign in", "Sign in to", ">Password<", "Forgot password?")
			failed := b.login(annEmail, "not the password", "")
			schools.InLanguage(t, "failed sign-in", failed.body, lang, loc.Text("signin.failed"), MsgLoginFailed)
			incomplete := b.login(annEmail, "", "")
			schools.InLanguage(t, "incomplete sign-in", incomplete.body, lang, loc.Text("signin.incomplete"), MsgLoginIncomplete)
			expired := b.do(http.MethodPost, LoginPath, url.Values{"email": {annEmail}, "password": {annPassword}, CSRFField: {"forged"}})
			schools.InLanguage(t, "expired sign-in form", expired.body, lang, loc.Text("signin.expired"), MsgLoginExpired)

			b.mustLogin()
			done := b.do(http.MethodGet, DonePath, nil)
			schools.InLanguage(t, "signed-in page", done.body, lang, loc.Text("signin.done.heading", "School", school),
				"You are signed in", "Signed in as", "You can close this page", ">Sign out<")

			consent := b.do(http.MethodGet, "/oauth/authorize?client_name=Flash+Cards&client_id_host=cards.example&loopback=1", nil)
			schools.InLanguage(t, "consent page", consent.body, lang, loc.Text("consent.heading_from_after", "Client", "Flash Cards", "School", school),
				"Allow ", "It asks to", "Approve", "Deny", "loopback address", "published by", "Not you?", "Confirm who you are")
			schools.InLanguage(t, "consent page", consent.body, lang, loc.Text("scope.account_read"),
				"See your own courses")
			plain := b.do(http.MethodGet, "/oauth/authorize?client_name=Flash+Cards", nil)
			schools.InLanguage(t, "consent page of a registered client", plain.body, lang,
				loc.Text("consent.heading", "Client", "Flash Cards", "School", school), "Allow ", "to use your account")

			logout := b.do(http.MethodGet, LogoutPath, nil)
			schools.InLanguage(t, "sign-out confirmation", logout.body, lang, loc.Text("signin.logout.heading", "School", school),
				"Sign out of", "You are signed in as", ">Sign out<")
			refused := b.do(http.MethodPost, LogoutPath, url.Values{CSRFField: {"forged"}})
			schools.InLanguage(t, "expired sign-out form", refused.body, lang, loc.Text("signin.logout.expired"), MsgLogoutExpired)
			out := b.do(http.MethodPost, LogoutPath, url.Values{CSRFField: {csrfFrom(t, logout.body)}})
			schools.InLanguage(t, "signed-out page", out.body, lang, loc.Text("signin.signed_out.heading", "School", school),
				"You are signed out", "Sign in again")

			bad := b.postRaw(LoginPath, "email=%zz")
			if bad.StatusCode != http.StatusBadRequest {
				t.Fatalf("a malformed form: %d", bad.StatusCode)
			}
			schools.InLanguage(t, "error page", bad.body, lang, loc.Text("errors.bad_form.title"),
				"The form could not be read", "Go back", "Reference:")
		})
	}
}

// The second step's page, and its refusals, are in the browser's language.
func TestFactorPageInLanguage(t *testing.T) {
	cat := schools.Catalogue(t)
	for _, lang := range pageLanguages {
		t.Run(lang, func(t *testing.T) {
			loc := cat.Localizer(lang, nil)
			e := newEnv(t, func(d *Deps) { d.Factors = oneFactor{} })
			b := e.browser(hostA, false)
			b.lang = lang
			res := b.login(annEmail, annPassword, "")
			if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), FactorPath) {
				t.Fatalf("password: %d to %q", res.StatusCode, res.Header.Get("Location"))
			}
			page := b.do(http.MethodGet, res.Header.Get("Location"), nil)
			schools.InLanguage(t, "second step", page.body, lang, loc.Text("signin.factor.heading", "School", "School A"),
				"Second step", "second step", "Code from your authenticator app", ">Continue<")
			wrong := b.do(http.MethodPost, FactorPath, url.Values{"code": {"123456"}, CSRFField: {csrfFrom(t, page.body)}})
			schools.InLanguage(t, "wrong code", wrong.body, lang, loc.Text("signin.factor.failed"), MsgFactorFailed)
			expired := b.do(http.MethodPost, FactorPath, url.Values{"code": {"123456"}, CSRFField: {"forged"}})
			schools.InLanguage(t, "expired second step", expired.body, lang, loc.Text("signin.form_expired"), MsgFactorExpired)
		})
	}
}

// The English the catalogue gives is the English these exported messages say (other packages'
// tests look for them in pages).
func TestEnglishMessages(t *testing.T) {
	en := schools.Catalogue(t).Localizer("en", nil)
	for key, want := range map[string]string{
		"signin.failed":         MsgLoginFailed,
		"signin.limited":        MsgLoginLimited,
		"signin.expired":        MsgLoginExpired,
		"signin.incomplete":     MsgLoginIncomplete,
		"signin.busy":           MsgLoginBusy,
		"signin.logout.expired": MsgLogoutExpired,
		"signin.factor.failed":  MsgFactorFailed,
		"signin.factor.limited": MsgFactorLimited,
		"signin.form_expired":   MsgFactorExpired,
	} {
		if got := en.Text(key); got != want {
			t.Errorf("%s is %q in the catalogue, %q here", key, got, want)
		}
	}
}
