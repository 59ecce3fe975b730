package account_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/proctorhq/proctor/account"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/server/servertest/schools"
)

// speaking is a browser that has chosen lang with the pages' language switcher.
func (e *env) speaking(s *school.School, lang string) *browser {
	e.t.Helper()
	b := e.browser()
	b.ChooseLanguage(s, lang)
	return b
}

// The pages of password recovery and invitations, and their refusals, are in the member's
// language; the answer to the forgotten-password form is the same for an address that is a
// member's and one that is nobody's, in every language.
func TestRecoveryPagesInLanguage(t *testing.T) {
	cat := schools.Catalogue(t)
	for _, lang := range []string{"ja", "zh-TW"} {
		t.Run(lang, func(t *testing.T) {
			loc := cat.Localizer(lang, nil)
			e := newEnv(t)
			name := e.a.Name
			b := e.speaking(e.a, lang)

			form := b.Get(e.url(e.a, account.ForgotPath))
			schools.InLanguage(t, "forgotten-password form", form.Body, lang, loc.Text("signin.forgot.intro", "School", name),
				"Forgot your password?", "Send the link", "Back to sign in")
			missing := b.Post(e.url(e.a, account.ForgotPath), url.Values{"email": {""}, login.CSRFField: {form.CSRF(t)}})
			schools.InLanguage(t, "forgotten-password form without an address", missing.Body, lang, loc.Text("signin.forgot.email_missing"), account.MsgEmailMissing)
			expired := b.Post(e.url(e.a, account.ForgotPath), url.Values{"email": {annEmail}, login.CSRFField: {"forged"}})
			schools.InLanguage(t, "expired forgotten-password form", expired.Body, lang, loc.Text("signin.form_expired"), account.MsgFormExpired)

			member, nobody := b.forgot(e.a, annEmail), b.forgot(e.a, "nobody@example.com")
			if member.Status != http.StatusOK || member.Body != nobody.Body {
				t.Errorf("a member's address (%d) and nobody's (%d) answer differently:\n%s\n---\n%s", member.Status, nobody.Status, member.Body, nobody.Body)
			}
			minutes := int(e.svc.ResetTTL().Minutes())
			schools.InLanguage(t, "link sent", member.Body, lang, loc.Text("signin.sent.body", "Count", minutes),
				"Check your e-mail", "If an account exists", "ask again")
			link := e.linkIn(e.deliver()[0])

			reset := b.Get(link)
			schools.InLanguage(t, "new-password form", reset.Body, lang, loc.Text("signin.reset.note"),
				"Choose a new password", "New password", "Repeat the new password", "Set the password", ">For <")
			token, csrf := b.openForm(link)
			u, _ := url.Parse(link)
			post := func(pw, pw2 string) *response {
				return b.Post(u.Scheme+"://"+u.Host+u.Path, url.Values{"token": {token}, "password": {pw}, "password2": {pw2}, login.CSRFField: {csrf}})
			}
			differ := post("a long new password", "another long password")
			schools.InLanguage(t, "passwords that differ", differ.Body, lang, loc.Text("signin.passwords_differ"), account.MsgPasswordsDiffer)
			short := post("short", "short")
			schools.InLanguage(t, "a refused password", short.Body, lang, loc.Text("signin.password_too_short"), "Choose a password of at least")

			dead := b.Get(e.url(e.a, account.ResetPath+"?token="+randomToken()))
			schools.InLanguage(t, "dead reset link", dead.Body, lang, loc.Text("signin.link_dead.reset"),
				"This link has expired", "Ask for a new link")
			deadInvitation := b.Get(e.url(e.a, account.InvitationPath+"?token="+randomToken()))
			schools.InLanguage(t, "dead invitation", deadInvitation.Body, lang, loc.Text("signin.link_dead.invitation", "School", name),
				"An invitation link works once", ">Sign in<")

			_, invited := e.invite(e.a, "nia@example.com", "Nia")
			welcome := b.Get(invited)
			schools.InLanguage(t, "invitation", welcome.Body, lang, loc.Text("signin.invitation.welcome", "School", name),
				"Welcome to", "Choose a password for", "Repeat the password", "Set the password and sign in")
			_, joined := e.invite(e.b, annEmail, "Ann Example")
			belong := e.speaking(e.b, lang).Get(joined)
			schools.InLanguage(t, "invitation of a member with a password", belong.Body, lang, loc.Text("signin.invitation.belong", "School", e.b.Name),
				"You now belong to", "Sign in with the password", "Continue to sign in")
		})
	}
}
