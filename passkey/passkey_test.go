package passkey_test

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/factor"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/passkey"
	"github.com/proctorhq/proctor/storage"
)

// A member adds a passkey from their account area and signs in with it alone, in another
// browser: the session is theirs and the browser goes on to return_to.
func TestRegisterAndSignIn(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		laptop := e.browser()
		laptop.SignIn(e.a, e.ann.Email)
		auth := &authenticator{t: t, origin: e.a.Origin, synced: true}
		cred := laptop.register(e.a, auth, "  My\tlaptop\x00 ")
		if string(cred.userHandle) == "" || strings.Contains(string(cred.userHandle), "ann") {
			t.Errorf("user handle %q names the member", cred.userHandle)
		}
		if cred.rpID != "north.example.com" {
			t.Errorf("relying party id %q, want the school's host", cred.rpID)
		}
		page := laptop.Get(e.a.URL(passkey.AccountPath + "?done=added")).Body
		for _, want := range []string{"My laptop", "Synced", "Your passkey was added"} {
			if !strings.Contains(page, want) {
				t.Errorf("the list does not show %q:\n%s", want, page)
			}
		}
		keys, err := e.gs.ListPasskeys(e.ctx(e.a), e.ann.ID)
		if err != nil || len(keys) != 1 {
			t.Fatalf("ListPasskeys = %v, %v", keys, err)
		}
		if !keys[0].BackupEligible || keys[0].Name != "My laptop" || len(keys[0].Transports) != 2 {
			t.Errorf("stored passkey = %+v", keys[0])
		}

		phone := e.browser()
		c := phone.beginSignIn(e.a)
		if c.opts.PublicKey.RPID != "north.example.com" || len(c.opts.PublicKey.AllowCredentials) != 0 ||
			c.opts.PublicKey.UserVerification != "required" {
			t.Errorf("sign-in options = %+v", c.opts.PublicKey)
		}
		res := phone.finishSignIn(e.a, c, auth.assert(c.opts, cred))
		if res.Status != http.StatusOK {
			t.Fatalf("sign-in finish: %d\n%s", res.Status, res.Body)
		}
		if got := jsonBody[finished](t, res).Redirect; got != "/oauth/authorize?x=1" {
			t.Errorf("sign-in goes to %q", got)
		}
		if got := phone.signedInAs(e.a); got != e.ann.Email {
			t.Errorf("signed in as %q, want %s", got, e.ann.Email)
		}
		keys, _ = e.gs.ListPasskeys(e.ctx(e.a), e.ann.ID)
		if keys[0].LastUsedAt.IsZero() {
			t.Error("the passkey's use was not recorded")
		}
		want := "sign_in/success/ factor_enrolled/success/passkey sign_in/success/passkey factor_used/success/passkey"
		if got := strings.Join(e.events(e.a, e.ann), " "); got != want {
			t.Errorf("events %q, want %q", got, want)
		}
		evs, err := e.gs.ListSecurityEvents(e.ctx(e.a), audit.Filter{MemberID: e.ann.ID, Limit: audit.MaxPage})
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range evs { // each the member's own, from the browser's request, at the clock
			if ev.Actor != audit.ActorMember || ev.ActorID != e.ann.ID || ev.SubjectID != e.ann.ID ||
				!strings.HasPrefix(ev.UserAgent, "Go-http-client/") || ev.ClientAddr == "" || !ev.At.Equal(e.clock.Now()) {
				t.Errorf("event %+v", ev)
			}
		}
		if strings.Contains(e.log.String(), cred.rpID+"\",\"challenge") {
			t.Error("the log holds a ceremony")
		}
	})
}

// A passkey made at school A is refused at school B: signed over A's relying party id (what its
// authenticator does), and even signed over B's (a copy of the key used elsewhere), since B has
// no such credential. Nobody is signed in at B, and the passkey still works at A.
func TestPasskeyOfAnotherSchoolRefused(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		br := e.browser()
		br.SignIn(e.a, e.ann.Email)
		authA := &authenticator{t: t, origin: e.a.Origin}
		cred := br.register(e.a, authA, "Key")

		other := e.browser()
		// At B, from B's origin: the browser would not even offer the credential (its relying
		// party id is A's); an attacker's script or client sends it anyway.
		authAtB := &authenticator{t: t, origin: e.b.Origin}
		for _, rpID := range []string{cred.rpID, e.b.Host} {
			c := other.beginSignIn(e.b)
			res := other.finishSignIn(e.b, c, authAtB.get(c.opts, cred, rpID))
			if res.Status != http.StatusBadRequest || jsonBody[errorBody](t, res).Error != "refused" {
				t.Errorf("A's passkey at B (signed for %s): %d %s", rpID, res.Status, res.Body)
			}
		}
		// At A's endpoint with B's origin in the client data: refused too.
		c := other.beginSignIn(e.a)
		if res := other.finishSignIn(e.a, c, authAtB.get(c.opts, cred, cred.rpID)); res.Status != http.StatusBadRequest {
			t.Errorf("assertion from B's origin at A: %d %s", res.Status, res.Body)
		}
		if got := other.signedInAs(e.b); got != "" {
			t.Errorf("signed in at B as %q", got)
		}
		if keys, _ := e.gs.ListPasskeys(e.ctx(e.b), e.ann.ID); len(keys) != 0 {
			t.Errorf("Ann has %d passkeys at B", len(keys))
		}
		if res := other.signInWith(e.a, authA, cred); res.Status != http.StatusOK {
			t.Errorf("the passkey at A afterwards: %d %s", res.Status, res.Body)
		}
	})
}

// A challenge answers once: the same finish posted again, a stale assertion with a new
// ceremony, and a ceremony past its lifetime are all refused.
func TestChallengeAnswersOnce(t *testing.T) {
	e := newEnv(t)
	_, auth, cred := e.annWithKey()

	other := e.browser()
	c := other.beginSignIn(e.a)
	assertion := auth.assert(c.opts, cred)
	cookies := other.Client.Jar.Cookies(mustURL(t, e.a.Origin))
	if res := other.finishSignIn(e.a, c, assertion); res.Status != http.StatusOK {
		t.Fatalf("first finish: %d %s", res.Status, res.Body)
	}

	// The same request again, cookies and all, from a browser that kept them.
	replay := e.browser()
	replay.Client.Jar.SetCookies(mustURL(t, e.a.Origin), cookies)
	if res := replay.finishSignIn(e.a, c, assertion); res.Status != http.StatusBadRequest {
		t.Errorf("replayed finish: %d %s", res.Status, res.Body)
	}
	// The old assertion against a fresh ceremony: its challenge is not the new one.
	fresh := replay.beginSignIn(e.a)
	if res := replay.finishSignIn(e.a, ceremony{opts: fresh.opts, csrf: fresh.csrf}, assertion); res.Status != http.StatusBadRequest {
		t.Errorf("old assertion with a new ceremony: %d %s", res.Status, res.Body)
	}
	if got := replay.signedInAs(e.a); got != "" {
		t.Errorf("the replay signed in as %q", got)
	}
	// A ceremony finished after its lifetime.
	late := e.browser()
	c = late.beginSignIn(e.a)
	e.clock.Advance(6 * time.Minute)
	if res := late.finishSignIn(e.a, c, auth.assert(c.opts, cred)); res.Status != http.StatusBadRequest {
		t.Errorf("finish after the ceremony expired: %d %s", res.Status, res.Body)
	}
}

// A signature counter that goes back is refused and logged, and the passkey keeps its count;
// the next honest use (a higher count) works.
func TestSignCountRegressionRefused(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		br := e.browser()
		br.SignIn(e.a, e.ann.Email)
		auth := &authenticator{t: t, origin: e.a.Origin, counting: true}
		cred := br.register(e.a, auth, "Hardware key")
		for range 3 {
			b := e.browser()
			if res := b.signInWith(e.a, auth, cred); res.Status != http.StatusOK {
				t.Fatalf("sign-in: %d %s", res.Status, res.Body)
			}
		}
		stored, err := e.gs.PasskeyByCredentialID(e.ctx(e.a), cred.id)
		if err != nil || stored.SignCount != cred.count || stored.BackupEligible {
			t.Fatalf("stored = %+v, %v; want count %d, device-bound", stored, err, cred.count)
		}

		// A clone that lags behind.
		clone := e.browser()
		cred.count -= 2
		res := clone.signInWith(e.a, auth, cred)
		if res.Status != http.StatusBadRequest {
			t.Errorf("counter went back: %d %s", res.Status, res.Body)
		}
		if got := clone.signedInAs(e.a); got != "" {
			t.Errorf("signed in as %q with a counter that went back", got)
		}
		if !strings.Contains(e.log.String(), "signature counter did not increase") {
			t.Error("the refusal was not logged")
		}
		after, _ := e.gs.PasskeyByCredentialID(e.ctx(e.a), cred.id)
		if got := strings.Join(e.events(e.a, e.ann), " "); !strings.Contains(got, "factor_used/failure/passkey") {
			t.Errorf("events %q, want a failed use", got)
		}
		if after.SignCount != stored.SignCount {
			t.Errorf("count %d after the refusal, want %d", after.SignCount, stored.SignCount)
		}
		cred.count = stored.SignCount + 5
		if res := clone.signInWith(e.a, auth, cred); res.Status != http.StatusOK {
			t.Errorf("a higher counter afterwards: %d %s", res.Status, res.Body)
		}
	})
}

// Without user verification, the assertion is refused; so is a registration without it.
func TestUserVerificationRequired(t *testing.T) {
	e := newEnv(t)
	br := e.browser()
	br.SignIn(e.a, e.ann.Email)
	lazy := &authenticator{t: t, origin: e.a.Origin, skipUV: true}
	c := br.beginRegistration(e.a)
	res := br.Post(e.a.URL(passkey.RegisterFinishPath), url.Values{"csrf_token": {c.csrf}, "response": {string(lazy.create(c.opts))}})
	if res.Status != http.StatusBadRequest {
		t.Errorf("registration without user verification: %d %s", res.Status, res.Body)
	}
	auth := &authenticator{t: t, origin: e.a.Origin}
	cred := br.register(e.a, auth, "Key")
	auth.skipUV = true
	other := e.browser()
	if res := other.signInWith(e.a, auth, cred); res.Status != http.StatusBadRequest {
		t.Errorf("sign-in without user verification: %d %s", res.Status, res.Body)
	}
}

// The JSON endpoints need their CSRF token, and registration a session; nothing is stored
// otherwise.
func TestEndpointsNeedTokenAndSession(t *testing.T) {
	e := newEnv(t)
	anon := e.browser()
	if res := anon.Post(e.a.URL(passkey.RegisterBeginPath), url.Values{"csrf_token": {"x"}}); res.Status != http.StatusUnauthorized {
		t.Errorf("register begin without a session: %d %s", res.Status, res.Body)
	}
	br := e.browser()
	br.SignIn(e.a, e.ann.Email)
	for _, tok := range []string{"", "wrong", login.NewToken()} {
		for _, path := range []string{passkey.RegisterBeginPath, passkey.RegisterFinishPath} {
			res := br.Post(e.a.URL(path), url.Values{"csrf_token": {tok}})
			if res.Status != http.StatusForbidden || jsonBody[errorBody](t, res).Error != "expired" {
				t.Errorf("%s with token %q: %d %s", path, tok, res.Status, res.Body)
			}
		}
		for _, path := range []string{passkey.SignInBeginPath, passkey.SignInFinishPath} {
			res := anon.Post(e.a.URL(path), url.Values{"csrf_token": {tok}})
			if res.Status != http.StatusForbidden {
				t.Errorf("%s with token %q: %d %s", path, tok, res.Status, res.Body)
			}
		}
	}
	// The session's token at another school is no token there.
	page := br.Get(e.a.URL(passkey.AccountPath)).Body
	br.SignIn(e.b, e.ann.Email)
	if res := br.Post(e.b.URL(passkey.RegisterBeginPath), url.Values{"csrf_token": {attr(t, page, "data-csrf")}}); res.Status != http.StatusForbidden {
		t.Errorf("A's token at B: %d %s", res.Status, res.Body)
	}
	// A registration begun by Ann cannot be finished by Bob in the same browser.
	c := br.beginRegistration(e.a)
	br.Post(e.a.URL(login.LogoutPath), url.Values{"csrf_token": {br.SessionCSRF(e.a)}})
	br.SignIn(e.a, e.bob.Email)
	page = br.Get(e.a.URL(passkey.AccountPath)).Body
	auth := &authenticator{t: t, origin: e.a.Origin}
	res := br.Post(e.a.URL(passkey.RegisterFinishPath), url.Values{"csrf_token": {attr(t, page, "data-csrf")}, "response": {string(auth.create(c.opts))}})
	if res.Status != http.StatusBadRequest {
		t.Errorf("Bob finishing Ann's registration: %d %s", res.Status, res.Body)
	}
	for _, m := range []storage.Member{e.ann, e.bob} {
		if keys, _ := e.gs.ListPasskeys(e.ctx(e.a), m.ID); len(keys) != 0 {
			t.Errorf("member %d has %d passkeys", m.ID, len(keys))
		}
	}
	if strings.Contains(res.Body, "gormstore") || strings.Contains(res.Body, "webauthn") {
		t.Errorf("the refusal shows internals: %s", res.Body)
	}
}

// A school served at an IP address has no passkeys: the pages say so and begin refuses.
func TestNoPasskeysAtAnAddress(t *testing.T) {
	e := newEnv(t)
	br := e.browser()
	if body := br.Get(e.c.URL(login.LoginPath)).Body; strings.Contains(body, "passkey-sign-in-link") {
		t.Error("the sign-in form at an address links to passkeys")
	}
	if body := br.Get(e.a.URL(login.LoginPath)).Body; !strings.Contains(body, "passkey-sign-in-link") {
		t.Error("the sign-in form at a host does not link to passkeys")
	}
	page := br.Get(e.c.URL(passkey.SignInPath)).Body
	if !strings.Contains(page, "passkeys-unavailable") {
		t.Errorf("the sign-in page does not say passkeys are unavailable:\n%s", page)
	}
	br.SignIn(e.c, e.ann.Email)
	page = br.Get(e.c.URL(passkey.AccountPath)).Body
	if !strings.Contains(page, "passkeys-unavailable") || strings.Contains(page, "data-passkey") {
		t.Errorf("the list page at an address offers to add a passkey:\n%s", page)
	}
	res := br.Post(e.c.URL(passkey.RegisterBeginPath), url.Values{"csrf_token": {br.SessionCSRF(e.c)}})
	if res.Status != http.StatusConflict {
		t.Errorf("register begin at an address: %d %s", res.Status, res.Body)
	}
}

// Renaming needs the session's form; removing needs the current password too, and wrong ones
// are counted.
func TestRenameAndRemove(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		br := e.browser()
		br.SignIn(e.a, e.ann.Email)
		auth := &authenticator{t: t, origin: e.a.Origin}
		br.register(e.a, auth, "Old")
		keys, _ := e.gs.ListPasskeys(e.ctx(e.a), e.ann.ID)
		id := keys[0].ID
		csrf := br.SessionCSRF(e.a)
		idStr := strconv.FormatInt(id, 10)

		if res := br.Post(e.a.URL(passkey.RenamePath), url.Values{"csrf_token": {csrf}, "id": {idStr}, "name": {"New"}}); res.Status != http.StatusSeeOther {
			t.Errorf("rename: %d %s", res.Status, res.Body)
		}
		if res := br.Post(e.a.URL(passkey.RenamePath), url.Values{"csrf_token": {"nope"}, "id": {idStr}, "name": {"Evil"}}); res.Status != http.StatusForbidden {
			t.Errorf("rename without the token: %d", res.Status)
		}
		// Bob cannot rename or remove Ann's.
		bob := e.browser()
		bob.SignIn(e.a, e.bob.Email)
		bobCSRF := bob.SessionCSRF(e.a)
		if res := bob.Post(e.a.URL(passkey.RenamePath), url.Values{"csrf_token": {bobCSRF}, "id": {idStr}, "name": {"Bob's"}}); res.Status != http.StatusNotFound {
			t.Errorf("Bob renaming Ann's passkey: %d", res.Status)
		}
		if res := bob.Post(e.a.URL(passkey.RemovePath), url.Values{"csrf_token": {bobCSRF}, "id": {idStr}, "current_password": {memberPass}}); res.Status != http.StatusNotFound {
			t.Errorf("Bob removing Ann's passkey: %d", res.Status)
		}
		got, _ := e.gs.PasskeyByCredentialID(e.ctx(e.a), keys[0].CredentialID)
		if got.Name != "New" {
			t.Errorf("name %q, want New", got.Name)
		}

		for _, pw := range []string{"", "wrong password"} {
			res := br.Post(e.a.URL(passkey.RemovePath), url.Values{"csrf_token": {csrf}, "id": {idStr}, "current_password": {pw}})
			if res.Status != http.StatusOK || !strings.Contains(res.Body, "current password") {
				t.Errorf("remove with password %q: %d", pw, res.Status)
			}
		}
		if _, err := e.gs.PasskeyByCredentialID(e.ctx(e.a), keys[0].CredentialID); err != nil {
			t.Fatalf("the passkey went without the password: %v", err)
		}
		if res := br.Post(e.a.URL(passkey.RemovePath), url.Values{"csrf_token": {csrf}, "id": {idStr}, "current_password": {memberPass}}); res.Status != http.StatusSeeOther {
			t.Errorf("remove: %d %s", res.Status, res.Body)
		}
		if _, err := e.gs.PasskeyByCredentialID(e.ctx(e.a), keys[0].CredentialID); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("after remove: %v", err)
		}
		if got := strings.Join(e.events(e.a, e.ann), " "); !strings.HasSuffix(got, "factor_removed/success/passkey") {
			t.Errorf("events %q, want factor_removed last", got)
		}
		// Four more wrong passwords spend the budget of five.
		for range 4 {
			br.Post(e.a.URL(passkey.RemovePath), url.Values{"csrf_token": {csrf}, "id": {idStr}, "current_password": {"wrong"}})
		}
		if res := br.Post(e.a.URL(passkey.RemovePath), url.Values{"csrf_token": {csrf}, "id": {idStr}, "current_password": {memberPass}}); res.Status != http.StatusTooManyRequests {
			t.Errorf("remove after spending the budget: %d", res.Status)
		}
	})
}

// Failed assertions spend the client address's sign-in budget; once spent, even a good
// assertion is refused before it is checked.
func TestFailedAssertionsAreLimited(t *testing.T) {
	e := newEnv(t)
	_, auth, cred := e.annWithKey()
	attacker := e.browser()
	attacker.Addr = "192.0.2.7"
	forged := &authenticator{t: t, origin: "https://evil.example"}
	for i := range 6 {
		c := attacker.beginSignIn(e.a)
		if res := attacker.finishSignIn(e.a, c, forged.get(c.opts, cred, cred.rpID)); res.Status != http.StatusBadRequest {
			t.Fatalf("forged assertion %d: %d %s", i, res.Status, res.Body)
		}
	}
	// The budget is whole again after its window (the test's 15 minutes), as the sign-in form
	// that shares it says.
	res := attacker.signInWith(e.a, auth, cred)
	if res.Status != http.StatusTooManyRequests || res.Header.Get("Retry-After") != "900" {
		t.Errorf("after the budget: %d, Retry-After %q, %s", res.Status, res.Header.Get("Retry-After"), res.Body)
	}
	// Another address is not limited.
	other := e.browser()
	if res := other.signInWith(e.a, auth, cred); res.Status != http.StatusOK {
		t.Errorf("another address: %d %s", res.Status, res.Body)
	}
}

// The pages load the script and carry the passkey policy; the script is served by its hash.
func TestPagesAndScript(t *testing.T) {
	e := newEnv(t)
	br := e.browser()
	res := br.Get(e.a.URL(passkey.SignInPath))
	if res.Header.Get("Content-Security-Policy") != passkey.Policy {
		t.Errorf("sign-in page CSP %q", res.Header.Get("Content-Security-Policy"))
	}
	src := attr(t, res.Body, "<script src")
	if !strings.HasPrefix(src, "/assets/passkey-") || strings.Contains(res.Body, "<script>") {
		t.Errorf("script %q, or an inline script", src)
	}
	js := br.Get(e.a.URL(src))
	if js.Status != http.StatusOK || !strings.HasPrefix(js.Header.Get("Content-Type"), "text/javascript") || !strings.Contains(js.Body, "navigator.credentials") {
		t.Errorf("script: %d %s", js.Status, js.Header.Get("Content-Type"))
	}
	if res := br.Get(e.a.URL(login.LoginPath)); strings.Contains(res.Header.Get("Content-Security-Policy"), "script-src") {
		t.Error("the password sign-in form allows scripts")
	}
	// Signed in, the sign-in page goes on.
	br.SignIn(e.a, e.ann.Email)
	if res := br.Get(e.a.URL(passkey.SignInPath + "?return_to=/account")); res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/account" {
		t.Errorf("signed in: %d %s", res.Status, res.Header.Get("Location"))
	}
}

func TestAMR(t *testing.T) {
	for _, c := range []struct {
		synced bool
		want   string
	}{{true, "swk user mfa"}, {false, "hwk user mfa"}} {
		if got := strings.Join(passkey.SignInAMR(factor.Passkey{BackupEligible: c.synced}), " "); got != c.want {
			t.Errorf("synced %v: %q, want %q", c.synced, got, c.want)
		}
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
