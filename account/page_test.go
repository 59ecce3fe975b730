package account_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/account"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/password"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage"
)

func TestAccountPageNeedsSession(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		schools.SetRoles(t, e.gs, e.b, e.ann.ID, storage.RoleStudent) // Ann is a student at both schools
		b := e.browserAs(chromeMac)
		res := b.Get(e.url(e.a, account.AccountPath))
		if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/login?return_to=%2Faccount" {
			t.Fatalf("GET /account: %d %q", res.Status, res.Header.Get("Location"))
		}
		for _, path := range []string{account.ProfilePath, account.PasswordPath, account.EmailPath, account.SessionEndOthersPath, account.AppRemovePath} {
			res := b.Post(e.url(e.a, path), url.Values{"name": {"X"}})
			if res.Status != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), login.LoginPath) {
				t.Errorf("POST %s: %d %q", path, res.Status, res.Header.Get("Location"))
			}
		}
		// A session of school A is nothing at school B.
		b.SignIn(e.a, annEmail)
		if !b.SignedIn(e.a) || b.SignedIn(e.b) {
			t.Error("the session should open the page at A only")
		}
	})
}

func TestAccountPageShowsTheMemberEscaped(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		setProfile(t, e, e.ann.ID, `<script>alert("x")</script>`, "https://img.example/ann.png")
		b := e.browserAs(chromeMac)
		b.SignIn(e.a, annEmail)
		res := b.Get(e.url(e.a, account.AccountPath))
		if res.Status != http.StatusOK {
			t.Fatalf("status %d", res.Status)
		}
		for _, want := range []string{"Northwind", annEmail, "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;",
			`<img src="https://img.example/ann.png"`, "This device", "Chrome on macOS", "127.0.0.1", "Signed in</span>"} {
			if !strings.Contains(res.Body, want) {
				t.Errorf("page lacks %q", want)
			}
		}
		if strings.Contains(res.Body, "<script>") {
			t.Error("the name is not escaped")
		}
		if csp := res.Header.Get("Content-Security-Policy"); csp != account.AccountPolicy || res.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("headers: CSP %q, Cache-Control %q", csp, res.Header.Get("Cache-Control"))
		}

		// A picture address that is not https is shown as text, never loaded.
		setProfile(t, e, e.ann.ID, "Ann", "http://img.example/ann.png")
		page := b.page(e.a)
		if strings.Contains(page, "<img") || !strings.Contains(page, "http://img.example/ann.png") {
			t.Error("an http picture should be shown as its address")
		}
	})
}

func setProfile(t *testing.T, e *env, id int64, name, picture string) {
	t.Helper()
	if _, err := e.gs.UpdateMember(e.ctx(e.a), id, func(m storage.Member) (storage.Member, error) {
		m.Name, m.AvatarURL = name, picture
		return m, nil
	}); err != nil {
		t.Fatal(err)
	}
}

func TestAccountFormsRefuseAWrongCSRFToken(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		b := e.browserAs(chromeMac)
		b.SignIn(e.a, annEmail)
		other := e.browserAs(firefoxWin) // so that the page has the "all other devices" form
		other.SignIn(e.a, annEmail)
		for _, tc := range []struct{ action, field, value string }{
			{account.ProfilePath, "name", "Mallory"},
			{account.PasswordPath, "new_password", "a new password of mine"},
			{account.EmailPath, "email", "mallory@example.com"},
			{account.SessionEndOthersPath, "", ""},
		} {
			f := formWith(t, b.page(e.a), tc.action)
			if tc.field != "" {
				f.Set(tc.field, tc.value)
			}
			for _, token := range []string{"", "not-the-token"} {
				f.Set("csrf_token", token)
				res := b.Post(e.url(e.a, tc.action), f)
				if res.Status != http.StatusForbidden || !strings.Contains(res.Body, "This form has expired") {
					t.Errorf("POST %s with csrf_token %q: %d", tc.action, token, res.Status)
				}
			}
		}
		m, err := e.gs.GetMember(e.ctx(e.a), e.ann.ID)
		if err != nil || m.Name != "Ann Example" || m.Email != annEmail || m.PasswordHash != cheapHash {
			t.Errorf("member changed: %+v, %v", m, err)
		}
		if len(e.deliver()) != 0 {
			t.Error("a mail was queued")
		}
		if !other.SignedIn(e.a) {
			t.Error("a refused form ended a session")
		}
	})
}

func TestProfileChange(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		b := e.browserAs(chromeMac)
		b.SignIn(e.a, annEmail)
		for _, tc := range []struct{ name, picture, message string }{
			{"   ", "", "Enter your name."},
			{strings.Repeat("n", 101), "", "at most 100 characters"},
			{"Ann\u202eelpmaxE", "", "cannot be shown"},
			{"Ann\nExample", "", "cannot be shown"},
			{"Ann", "http://img.example/a.png", "https://"},
			{"Ann", "javascript:alert(1)", "https://"},
			{"Ann", "https://user:pw@img.example/a.png", "https://"},
			{"Ann", "https://img.example/" + strings.Repeat("a", 2048), "https://"},
		} {
			res := b.submit(e.a, account.ProfilePath, url.Values{"name": {tc.name}, "picture": {tc.picture}})
			if res.Status != http.StatusOK || !strings.Contains(res.Body, tc.message) {
				t.Errorf("name %q picture %q: %d, want the form with %q", tc.name, tc.picture, res.Status, tc.message)
			}
		}
		res := b.submit(e.a, account.ProfilePath, url.Values{"name": {"  Ann <Ex> Ample  "}, "picture": {"https://img.example/new.png"}})
		if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/account?done=profile" {
			t.Fatalf("save: %d %q\n%s", res.Status, res.Header.Get("Location"), res.Body)
		}
		m, err := e.gs.GetMember(e.ctx(e.a), e.ann.ID)
		if err != nil || m.Name != "Ann <Ex> Ample" || m.AvatarURL != "https://img.example/new.png" {
			t.Fatalf("member: %+v, %v", m, err)
		}
		page := b.Get(e.url(e.a, res.Header.Get("Location"))).Body
		for _, want := range []string{"Your profile was saved.", "Ann &lt;Ex&gt; Ample", "Profile changed"} {
			if !strings.Contains(page, want) {
				t.Errorf("page lacks %q", want)
			}
		}
		// The picture may be removed.
		if res := b.submit(e.a, account.ProfilePath, url.Values{"name": {"Ann"}, "picture": {""}}); res.Status != http.StatusSeeOther {
			t.Fatalf("remove picture: %d", res.Status)
		}
		if m, _ := e.gs.GetMember(e.ctx(e.a), e.ann.ID); m.AvatarURL != "" {
			t.Errorf("picture %q", m.AvatarURL)
		}
		// A done key that is not one of the page's is ignored, and nothing of it is shown (the
		// language switcher's links come back to the same address, encoded: that is no text).
		page = b.Get(e.url(e.a, "/account?done=%3Cb%3Ehello")).Body
		if _, main, _ := strings.Cut(page, "<main>"); strings.Contains(main, "hello") || strings.Contains(page, "<b>") {
			t.Error("the done parameter was echoed")
		}
	})
}

func TestPasswordChange(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		d := e.devices()
		here, other, elsewhere, bob := d.here, d.laptop, d.atB, d.bob
		const next = "a brand new passphrase"

		for _, tc := range []struct {
			current, next, repeat, message string
		}{
			{"", next, next, "Enter your current password."},
			{memberPass, "short", "short", password.ErrTooShort.Error()},
			{memberPass, next, next + "!", "are not the same"},
			{"wrong password", next, next, "Your current password is not right."},
		} {
			res := here.submit(e.a, account.PasswordPath, url.Values{"current_password": {tc.current}, "new_password": {tc.next}, "repeat_password": {tc.repeat}})
			if res.Status != http.StatusOK || !strings.Contains(res.Body, tc.message) {
				t.Errorf("%+v: %d, want the form with %q", tc, res.Status, tc.message)
			}
		}
		if m, _ := e.gs.GetMember(e.ctx(e.a), e.ann.ID); m.PasswordHash != cheapHash {
			t.Fatal("a refused form changed the password")
		}

		res := here.submit(e.a, account.PasswordPath, url.Values{"current_password": {memberPass}, "new_password": {next}, "repeat_password": {next}})
		if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/account?done=password" {
			t.Fatalf("change: %d %q\n%s", res.Status, res.Header.Get("Location"), res.Body)
		}
		m, err := e.gs.GetMember(e.ctx(e.a), e.ann.ID)
		if err != nil || password.Verify(next, m.PasswordHash) != nil {
			t.Fatalf("the new password does not verify: %v", err)
		}
		// This device stays signed in; every other session of Ann ends, at every school; Bob's
		// does not.
		if !here.SignedIn(e.a) {
			t.Error("the current session ended")
		}
		if other.SignedIn(e.a) || elsewhere.SignedIn(e.b) {
			t.Error("another session of the member survived a new password")
		}
		if !bob.SignedIn(e.a) {
			t.Error("another member's session ended")
		}
		page := here.page(e.a)
		if !strings.Contains(page, "Password changed") {
			t.Error("no event for the change")
		}
		// The new password signs in; the old one does not.
		fresh := e.browserAs(chromeMac)
		res = fresh.Get(e.url(e.a, login.LoginPath))
		f := formWith(t, res.Body, login.LoginPath)
		f.Set("email", annEmail)
		f.Set("password", memberPass)
		if res := fresh.Post(e.url(e.a, login.LoginPath), f); res.Status == http.StatusSeeOther {
			t.Error("the old password still signs in")
		}
		f.Set("password", next)
		if res := fresh.Post(e.url(e.a, login.LoginPath), f); res.Status != http.StatusSeeOther {
			t.Errorf("the new password does not sign in: %d", res.Status)
		}
	})
}

func TestPasswordChangeCanSignOutApplications(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		b := e.browserAs(chromeMac)
		b.SignIn(e.a, annEmail)
		tok := b.tokens("study-buddy")
		const next = "a brand new passphrase"
		res := b.submit(e.a, account.PasswordPath, url.Values{"current_password": {memberPass}, "new_password": {next},
			"repeat_password": {next}, "sign_out_apps": {"yes"}})
		if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/account?done=password-all" {
			t.Fatalf("change: %d %q", res.Status, res.Header.Get("Location"))
		}
		e.wantRevoked("study-buddy", tok, "after sign-out of applications")
	})
}

func TestWrongCurrentPasswordsAreLimited(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		b := e.browserAs(chromeMac)
		b.SignIn(e.a, annEmail)
		wrong := url.Values{"current_password": {"not it"}, "new_password": {"a brand new passphrase"}, "repeat_password": {"a brand new passphrase"}}
		for i := range 5 {
			if res := b.submit(e.a, account.PasswordPath, wrong); res.Status != http.StatusOK {
				t.Fatalf("attempt %d: %d", i+1, res.Status)
			}
		}
		// The budget is the member's, shared by the password and e-mail forms; even the right
		// password is not checked now.
		res := b.submit(e.a, account.EmailPath, url.Values{"email": {"ann.new@example.com"}, "current_password": {memberPass}})
		if res.Status != http.StatusTooManyRequests || !strings.Contains(res.Body, "Too many wrong passwords") || res.Header.Get("Retry-After") == "" {
			t.Fatalf("sixth attempt: %d %q", res.Status, res.Header.Get("Retry-After"))
		}
		if len(e.deliver()) != 0 {
			t.Error("a mail was queued")
		}
	})
}

var linkToken = regexp.MustCompile(`/account/email/confirm\?token=([A-Za-z0-9_-]{43})`)

func TestEmailChange(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		schools.SetRoles(t, e.gs, e.b, e.ann.ID, storage.RoleStudent) // Ann is a student at both schools
		ann := e.browserAs(chromeMac)
		ann.SignIn(e.a, annEmail)
		const newAddr = "ann.new@example.com"

		for _, tc := range []struct{ email, pw, message string }{
			{"not an address", memberPass, "Enter an e-mail address like"},
			{"Ann <ann.x@example.com>", memberPass, "Enter an e-mail address like"},
			{strings.Repeat("a", 250) + "@example.com", memberPass, "Enter an e-mail address like"},
			{" ANN@example.com ", memberPass, "That is already your e-mail address."},
			{newAddr, "", "Enter your current password."},
			{newAddr, "wrong password", "Your current password is not right."},
		} {
			res := ann.submit(e.a, account.EmailPath, url.Values{"email": {tc.email}, "current_password": {tc.pw}})
			if res.Status != http.StatusOK || !strings.Contains(res.Body, tc.message) {
				t.Errorf("%+v: %d, want the form with %q", tc, res.Status, tc.message)
			}
		}
		// An address that is another member's gets the same answer, and no mail.
		res := ann.submit(e.a, account.EmailPath, url.Values{"email": {bobEmail}, "current_password": {memberPass}})
		if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/account?done=email-sent" {
			t.Fatalf("taken address: %d %q", res.Status, res.Header.Get("Location"))
		}
		if n := len(e.deliver()); n != 0 {
			t.Fatalf("%d mails for a taken address", n)
		}

		res = ann.submit(e.a, account.EmailPath, url.Values{"email": {" Ann.New@Example.com "}, "current_password": {memberPass}})
		if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/account?done=email-sent" {
			t.Fatalf("request: %d %q\n%s", res.Status, res.Header.Get("Location"), res.Body)
		}
		if page := ann.Get(e.url(e.a, res.Header.Get("Location"))).Body; !strings.Contains(page, "We sent a confirmation link") {
			t.Error("no notice after the request")
		}
		mails := e.deliver()
		if len(mails) != 1 {
			t.Fatalf("%d mails", len(mails))
		}
		msg := mails[0]
		if len(msg.EnvelopeTo) != 1 || msg.EnvelopeTo[0] != newAddr || !strings.Contains(msg.Text, "Northwind") {
			t.Fatalf("mail to %v:\n%s", msg.EnvelopeTo, msg.Text)
		}
		mt := linkToken.FindStringSubmatch(msg.Text)
		if mt == nil || !strings.Contains(msg.Text, e.a.Origin+"/account/email/confirm?token=") {
			t.Fatalf("no link on school A's origin in:\n%s", msg.Text)
		}
		link := account.EmailConfirmPath + "?token=" + mt[1]

		// Whoever opens the link must be signed in as Ann, at the school it was made at.
		anon := e.browserAs(chromeMac)
		if res := anon.Get(e.url(e.a, link)); res.Status != http.StatusSeeOther ||
			res.Header.Get("Location") != "/login?return_to="+url.QueryEscape(link) {
			t.Errorf("signed out: %d %q", res.Status, res.Header.Get("Location"))
		}
		bob := e.browserAs(chromeMac)
		bob.SignIn(e.a, bobEmail)
		if res := bob.Get(e.url(e.a, link)); res.Status != http.StatusForbidden || strings.Contains(res.Body, newAddr) {
			t.Errorf("another member: %d", res.Status)
		}
		annB := e.browserAs(chromeMac)
		annB.SignIn(e.b, annEmail)
		if res := annB.Get(e.url(e.b, link)); res.Status != http.StatusNotFound {
			t.Errorf("another school: %d", res.Status)
		}
		// Bob cannot use it by posting either.
		if res := bob.Post(e.url(e.a, account.EmailConfirmPath), url.Values{"token": {mt[1]}, "csrf_token": {formWith(t, bob.page(e.a), account.ProfilePath).Get("csrf_token")}}); res.Status != http.StatusForbidden {
			t.Errorf("another member's POST: %d", res.Status)
		}

		// Opening the link twice uses nothing; confirming does.
		var page string
		for range 2 {
			res := ann.Get(e.url(e.a, link))
			if res.Status != http.StatusOK || !strings.Contains(res.Body, newAddr) {
				t.Fatalf("confirm page: %d\n%s", res.Status, res.Body)
			}
			page = res.Body
		}
		f := formWith(t, page, account.EmailConfirmPath)
		res = ann.Post(e.url(e.a, account.EmailConfirmPath), f)
		if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/account?done=email" {
			t.Fatalf("confirm: %d %q\n%s", res.Status, res.Header.Get("Location"), res.Body)
		}
		m, err := e.gs.GetMember(e.ctx(e.a), e.ann.ID)
		if err != nil || m.Email != newAddr {
			t.Fatalf("member: %+v, %v", m, err)
		}
		// The previous address hears of the change, and gets no link.
		notices := e.deliver()
		if len(notices) != 1 || len(notices[0].EnvelopeTo) != 1 || notices[0].EnvelopeTo[0] != annEmail ||
			!strings.Contains(notices[0].Subject, "was changed") || strings.Contains(notices[0].Text, "token=") {
			t.Fatalf("notice to the previous address: %+v", notices)
		}
		if page := ann.page(e.a); !strings.Contains(page, newAddr) || !strings.Contains(page, "E-mail address changed") {
			t.Error("the page does not show the new address and the event")
		}
		// Single use.
		if res := ann.Post(e.url(e.a, account.EmailConfirmPath), f); res.Status != http.StatusNotFound {
			t.Errorf("second confirmation: %d", res.Status)
		}
		if res := ann.Get(e.url(e.a, link)); res.Status != http.StatusNotFound {
			t.Errorf("link after use: %d", res.Status)
		}
		// The new address signs in.
		fresh := e.browserAs(chromeMac)
		fresh.SignIn(e.a, newAddr)
	})
}

func TestEmailChangeToAnAddressTakenMeanwhile(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		ann := e.browserAs(chromeMac)
		ann.SignIn(e.a, annEmail)
		const addr = "carol@example.com"
		if res := ann.submit(e.a, account.EmailPath, url.Values{"email": {addr}, "current_password": {memberPass}}); res.Status != http.StatusSeeOther {
			t.Fatalf("request: %d", res.Status)
		}
		mails := e.deliver()
		if len(mails) != 1 {
			t.Fatalf("%d mails", len(mails))
		}
		link := linkToken.FindString(mails[0].Text)
		schools.Member(t, e.gs, addr, "Carol", schools.At(e.a, storage.RoleStudent))
		page := ann.Get(e.url(e.a, link)).Body
		res := ann.Post(e.url(e.a, account.EmailConfirmPath), formWith(t, page, account.EmailConfirmPath))
		if res.Status != http.StatusConflict || !strings.Contains(res.Body, "Another account uses this e-mail address") {
			t.Fatalf("confirm: %d\n%s", res.Status, res.Body)
		}
		if m, _ := e.gs.GetMember(e.ctx(e.a), e.ann.ID); m.Email != annEmail {
			t.Errorf("e-mail %q", m.Email)
		}
	})
}

func TestEmailLinkDiesWithANewPassword(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		ann := e.browserAs(chromeMac)
		ann.SignIn(e.a, annEmail)
		if res := ann.submit(e.a, account.EmailPath, url.Values{"email": {"ann.new@example.com"}, "current_password": {memberPass}}); res.Status != http.StatusSeeOther {
			t.Fatalf("request: %d", res.Status)
		}
		link := linkToken.FindString(e.deliver()[0].Text)
		hash := schools.Hash(t, "another passphrase")
		if _, err := e.gs.UpdateMember(e.ctx(e.a), e.ann.ID, func(m storage.Member) (storage.Member, error) {
			m.PasswordHash = hash
			return m, nil
		}); err != nil {
			t.Fatal(err)
		}
		if res := ann.Get(e.url(e.a, link)); res.Status != http.StatusNotFound {
			t.Errorf("link after a new password: %d", res.Status)
		}
	})
}

func TestSessions(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		d := e.devices()
		here, laptop, atB, bob := d.here, d.laptop, d.atB, d.bob

		page := here.page(e.a)
		if strings.Count(page, `class="session"`) != 2 || !strings.Contains(page, "Firefox on Windows") || strings.Count(page, "This device") != 1 {
			t.Fatalf("sessions at A:\n%s", page)
		}
		forms := allForms(page, account.SessionEndPath)
		if len(forms) != 1 {
			t.Fatalf("%d end forms, want one (the current session has none)", len(forms))
		}
		// The session in use cannot be ended here.
		sessions, err := e.gs.ListMemberSessions(e.ctx(e.a), e.ann.ID, e.clock.Now())
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sessions {
			if s.ID == forms[0].Get("session_id") {
				continue
			}
			f := url.Values{"csrf_token": forms[0]["csrf_token"], "session_id": {s.ID}}
			if res := here.Post(e.url(e.a, account.SessionEndPath), f); res.Status != http.StatusBadRequest || !strings.Contains(res.Body, "sign out") {
				t.Errorf("ending the current session: %d", res.Status)
			}
		}
		// Another member's session is not ended, and nothing says whether it exists.
		bobSessions, err := e.gs.ListMemberSessions(e.ctx(e.a), e.bob.ID, e.clock.Now())
		if err != nil || len(bobSessions) != 1 {
			t.Fatalf("Bob's sessions: %v %v", bobSessions, err)
		}
		if res := here.Post(e.url(e.a, account.SessionEndPath), url.Values{"csrf_token": forms[0]["csrf_token"], "session_id": {bobSessions[0].ID}}); res.Status != http.StatusSeeOther {
			t.Errorf("another member's session: %d", res.Status)
		}
		if !bob.SignedIn(e.a) {
			t.Error("Bob was signed out")
		}

		res := here.Post(e.url(e.a, account.SessionEndPath), forms[0])
		if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/account?done=session" {
			t.Fatalf("end: %d %q", res.Status, res.Header.Get("Location"))
		}
		if laptop.SignedIn(e.a) || !here.SignedIn(e.a) || !atB.SignedIn(e.b) {
			t.Error("ending one session should end that one only")
		}
		if page := here.page(e.a); !strings.Contains(page, "Signed out a device") {
			t.Error("no event for the ended session")
		}

		// Ending the others at A leaves this one and the session at B.
		phone, tablet := e.browserAs(firefoxWin), e.browserAs(chromeMac)
		phone.SignIn(e.a, annEmail)
		tablet.SignIn(e.a, annEmail)
		res = here.submit(e.a, account.SessionEndOthersPath, nil)
		if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/account?done=sessions" {
			t.Fatalf("end others: %d %q", res.Status, res.Header.Get("Location"))
		}
		if phone.SignedIn(e.a) || tablet.SignedIn(e.a) || !here.SignedIn(e.a) || !atB.SignedIn(e.b) || !bob.SignedIn(e.a) {
			t.Error("end-others ended the wrong sessions")
		}
		if page := here.page(e.a); strings.Count(page, `class="session"`) != 1 || !strings.Contains(page, "2 other devices") {
			t.Errorf("after end-others:\n%s", page)
		}
	})
}

func TestConnectedApps(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		b := e.browserAs(chromeMac)
		b.SignIn(e.a, annEmail)
		buddy := b.tokens("study-buddy")
		cards := b.tokens("flash-cards")
		for _, tok := range []string{buddy.AccessToken, cards.AccessToken} {
			if got := e.userinfo(tok); got != http.StatusOK {
				t.Fatalf("userinfo before removal: %d", got)
			}
		}
		page := b.page(e.a)
		for _, want := range []string{"Study Buddy", "Flash Cards", "See your name and picture", "account:read"} {
			if !strings.Contains(page, want) {
				t.Errorf("page lacks %q", want)
			}
		}
		var removeBuddy url.Values
		for _, f := range allForms(page, account.AppRemovePath) {
			if f.Get("client_id") == "study-buddy" {
				removeBuddy = f
			}
		}
		if removeBuddy == nil {
			t.Fatal("no Remove access form for Study Buddy")
		}
		res := b.Post(e.url(e.a, account.AppRemovePath), removeBuddy)
		if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/account?done=app" {
			t.Fatalf("remove: %d %q", res.Status, res.Header.Get("Location"))
		}
		e.wantRevoked("study-buddy", buddy, "of the removed client")
		if got := e.userinfo(cards.AccessToken); got != http.StatusOK {
			t.Errorf("the other client's access token: %d", got)
		}
		if got := e.refresh("flash-cards", cards.RefreshToken); got != "" {
			t.Errorf("the other client's refresh token: %q", got)
		}
		page = b.page(e.a)
		if strings.Contains(page, "Study Buddy</span> <code") || !strings.Contains(page, "Flash Cards") {
			t.Error("the list should hold Flash Cards only")
		}
		if !strings.Contains(page, "Removed an application&#39;s access</span>: Study Buddy") {
			t.Errorf("no event naming the application:\n%s", page)
		}
	})
}
