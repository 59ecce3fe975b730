package passkey_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/passkey"
	"github.com/proctorhq/proctor/school"
)

// beginFactor opens the second step's passkey page at s (after a password, or with stepUp for a
// signed-in member) and begins the ceremony.
func (b *browser) beginFactor(s *school.School, stepUp bool) ceremony {
	b.e.t.Helper()
	q := url.Values{"return_to": {"/account"}}
	if stepUp {
		q.Set("step_up", "1")
	}
	page := b.Get(s.URL(passkey.FactorPagePath + "?" + q.Encode()))
	if page.Status != http.StatusOK {
		b.e.t.Fatalf("GET %s: %d %s\n%s", passkey.FactorPagePath, page.Status, page.Header.Get("Location"), page.Body)
	}
	csrf := attr(b.e.t, page.Body, "data-csrf")
	q.Set("csrf_token", csrf)
	res := b.Post(s.URL(passkey.FactorBeginPath), q)
	if res.Status != http.StatusOK {
		b.e.t.Fatalf("second step begin: %d\n%s", res.Status, res.Body)
	}
	return ceremony{opts: jsonBody[options](b.e.t, res), csrf: csrf}
}

func (b *browser) finishFactor(s *school.School, c ceremony, stepUp bool, assertion []byte) *response {
	b.e.t.Helper()
	f := url.Values{"csrf_token": {c.csrf}, "return_to": {"/account"}, "response": {string(assertion)}}
	if stepUp {
		f.Set("step_up", "1")
	}
	return b.Post(s.URL(passkey.FactorFinishPath), f)
}

// passwordToStep signs in with the password of email, a member with a passkey, at s, and returns
// the second step the form sends to.
func (b *browser) passwordToStep(s *school.School, email string) string {
	b.e.t.Helper()
	res := b.Get(s.URL(login.LoginPath))
	res = b.Post(s.URL(login.LoginPath), url.Values{"csrf_token": {res.CSRF(b.e.t)},
		"email": {email}, "password": {memberPass}, "return_to": {"/account"}})
	if res.Status != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), login.FactorPath) {
		b.e.t.Fatalf("password of a member with a passkey: %d %s", res.Status, res.Header.Get("Location"))
	}
	return res.Header.Get("Location")
}

// A member with a passkey who signs in with their password is asked for it as the second step;
// the page of the step links to the passkey, whose assertion (of the member's passkey, listed in
// the options) starts the session. Another member's passkey does not do.
func TestPasskeyAsSecondFactor(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		_, auth, cred := e.annWithKey()
		bobs := e.browser()
		bobs.SignIn(e.a, e.bob.Email)
		bobCred := bobs.register(e.a, auth, "Bob's key")

		br := e.browser()
		stepPath := br.passwordToStep(e.a, e.ann.Email)
		if got := br.signedInAs(e.a); got != "" {
			t.Fatalf("signed in as %q by the password alone", got)
		}
		step := br.Get(e.a.URL(stepPath))
		if link := attr(t, step.Body, `id="factor-passkey-link" href`); !strings.HasPrefix(link, passkey.FactorPagePath+"?return_to=%2faccount") {
			t.Errorf("the second step links to %q", link)
		}

		c := br.beginFactor(e.a, false)
		if n := len(c.opts.PublicKey.AllowCredentials); n != 1 || c.opts.PublicKey.UserVerification != "required" {
			t.Errorf("options list %d credentials, user verification %q", n, c.opts.PublicKey.UserVerification)
		}
		if res := br.finishFactor(e.a, c, false, auth.assert(c.opts, bobCred)); res.Status != http.StatusBadRequest {
			t.Errorf("Bob's passkey for Ann's second step: %d %s", res.Status, res.Body)
		}
		c = br.beginFactor(e.a, false)
		res := br.finishFactor(e.a, c, false, auth.assert(c.opts, cred))
		if res.Status != http.StatusOK || jsonBody[finished](t, res).Redirect != "/account" {
			t.Fatalf("second step: %d %s", res.Status, res.Body)
		}
		if got := br.signedInAs(e.a); got != e.ann.Email {
			t.Errorf("signed in as %q", got)
		}
		events := strings.Join(e.events(e.a, e.ann), " ")
		if !strings.Contains(events, "factor_used/failure/passkey") || !strings.Contains(events, "factor_used/success/passkey") {
			t.Errorf("events %q", events)
		}

		// Without a pending sign-in there is no step: the page sends to sign in, the endpoints
		// refuse.
		anon := e.browser()
		if res := anon.Get(e.a.URL(passkey.FactorPagePath)); res.Status != http.StatusSeeOther {
			t.Errorf("the step's page without a pending sign-in: %d", res.Status)
		}
		if res := anon.Post(e.a.URL(passkey.FactorBeginPath), url.Values{"csrf_token": {c.csrf}}); res.Status != http.StatusUnauthorized {
			t.Errorf("begin without a pending sign-in: %d %s", res.Status, res.Body)
		}
	})
}

// A signed-in member asked again (step-up) answers with the passkey; a fresh factor then stands
// in for the password when removing a passkey.
func TestPasskeyStepUp(t *testing.T) {
	e := newEnv(t)
	br, auth, cred := e.annWithKey()
	br.register(e.a, auth, "Spare")
	if page := br.Get(e.a.URL(passkey.AccountPath)).Body; !strings.Contains(page, `name="current_password"`) {
		t.Error("removing asks for no password before a fresh factor")
	}
	c := br.beginFactor(e.a, true)
	res := br.finishFactor(e.a, c, true, auth.assert(c.opts, cred))
	if res.Status != http.StatusOK || jsonBody[finished](t, res).Redirect != "/account" {
		t.Fatalf("step-up: %d %s\n%s", res.Status, res.Body, e.log.String())
	}
	page := br.Get(e.a.URL(passkey.AccountPath)).Body
	if strings.Contains(page, `name="current_password"`) {
		t.Error("removing still asks for the password after a fresh factor")
	}
	keys, _ := e.gs.ListPasskeys(e.ctx(e.a), e.ann.ID)
	res = br.Post(e.a.URL(passkey.RemovePath), url.Values{"csrf_token": {br.SessionCSRF(e.a)}, "id": {strconv.FormatInt(keys[1].ID, 10)}})
	if res.Status != http.StatusSeeOther {
		t.Errorf("remove with a fresh factor: %d %s", res.Status, res.Body)
	}
}

// A second step refused for a spent budget says when the budget is whole again (its window,
// the default 15 minutes), as the code form of the step does.
func TestPasskeySecondFactorLimited(t *testing.T) {
	e := newEnv(t)
	_, auth, cred := e.annWithKey()
	bobs := e.browser()
	bobs.SignIn(e.a, e.bob.Email)
	bobCred := bobs.register(e.a, auth, "Bob's key")

	br := e.browser()
	br.passwordToStep(e.a, e.ann.Email)
	// Bob's passkey fails Ann's step until the budget of five is spent.
	var res *response
	for range 10 {
		c := br.beginFactor(e.a, false)
		if res = br.finishFactor(e.a, c, false, auth.assert(c.opts, bobCred)); res.Status != http.StatusBadRequest {
			break
		}
	}
	if res.Status != http.StatusTooManyRequests || res.Header.Get("Retry-After") != "900" {
		t.Errorf("after the budget: %d, Retry-After %q, %s", res.Status, res.Header.Get("Retry-After"), res.Body)
	}
	c := br.beginFactor(e.a, false)
	if res := br.finishFactor(e.a, c, false, auth.assert(c.opts, cred)); res.Status != http.StatusTooManyRequests {
		t.Errorf("Ann's own passkey after the budget: %d %s", res.Status, res.Body)
	}
}
