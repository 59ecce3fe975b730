package passkey_test

import (
	"testing"

	"github.com/proctorhq/proctor/passkey"
	"github.com/proctorhq/proctor/server/servertest/schools"
)

// The passkey sign-in page, passwordless or as the second step, where passkeys work and where
// they do not, is in the member's language.
func TestPasskeySignInPageInLanguage(t *testing.T) {
	cat := schools.Catalogue(t)
	for _, lang := range []string{"ja", "zh-TW"} {
		t.Run(lang, func(t *testing.T) {
			e := newEnv(t)
			loc := cat.Localizer(lang, nil)
			b := e.browser()
			b.ChooseLanguage(e.a, lang)
			page := b.Get(e.a.Origin + passkey.SignInPath)
			schools.InLanguage(t, "passkey sign-in", page.Body, lang, loc.Text("signin.passkey.heading", "School", e.a.Name),
				"Sign in with a passkey", "Your browser asks", "Sign in another way")
			b.ChooseLanguage(e.c, lang)
			numeric := b.Get(e.c.Origin + passkey.SignInPath)
			schools.InLanguage(t, "passkey sign-in at a numeric address", numeric.Body, lang, loc.Text("signin.passkey.unavailable"), "Passkeys need the school")

			ann, _, _ := e.annWithKey()
			ann.ChooseLanguage(e.a, lang)
			stepUp := ann.Get(e.a.Origin + passkey.FactorPagePath + "?step_up=1&return_to=%2Faccount")
			schools.InLanguage(t, "passkey step-up", stepUp.Body, lang, loc.Text("signin.passkey.step_up_heading"),
				"Confirm it is you", "Use a code instead", "Sign in with a passkey")
		})
	}
}
