package account_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/proctorhq/proctor/account"
	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/password"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/gormstore"
)

func TestInvitationOfANewAddress(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		res, link := e.invite(e.a, "Nia@Example.com", "Nia account.New")
		if !res.Created || res.HasPassword || res.Member.Email != "nia@example.com" || res.Member.PasswordHash != "" {
			t.Fatalf("invite result %+v", res)
		}
		if !strings.HasPrefix(link, e.a.Origin+account.InvitationPath+"?token=") {
			t.Fatalf("link %s", link)
		}
		roles, err := e.gs.GetRoles(e.ctx(e.a), res.Member.ID)
		if err != nil || !slices.Equal(roles, []storage.Role{storage.RoleStudent}) {
			t.Fatalf("roles %v, %v", roles, err)
		}

		b := e.browser()
		// Opening the link twice (a mail scanner, then the person) uses nothing.
		for range 2 {
			page := b.Get(link)
			if page.Status != http.StatusOK || !strings.Contains(page.Body, "Nia account.New") || !strings.Contains(page.Body, "nia@example.com") ||
				!strings.Contains(page.Body, `name="password2"`) {
				t.Fatalf("invitation page %d:\n%s", page.Status, page.Body)
			}
			if page.Header.Get("Cache-Control") != "no-store" || page.Header.Get("Content-Security-Policy") != login.PagePolicy {
				t.Errorf("headers %v", page.Header)
			}
		}
		done := b.setPassword(link, newPassword, nil)
		if done.Status != http.StatusSeeOther || done.Header.Get("Location") != account.AccountPath {
			t.Fatalf("POST /invitation: %d %s\n%s", done.Status, done.Header.Get("Location"), done.Body)
		}
		if !b.SignedIn(e.a) {
			t.Fatal("the session cookie does not work at /login/done")
		}
		if password.Verify(newPassword, e.member("nia@example.com").PasswordHash) != nil {
			t.Error("the chosen password was not stored")
		}
		if page := b.Get(link); page.Status != http.StatusGone {
			t.Errorf("used link: %d", page.Status)
		}
		events, err := e.gs.ListSecurityEvents(e.ctx(e.a), audit.Filter{MemberID: res.Member.ID, Kinds: []audit.Kind{audit.KindInvitationAccepted}, Limit: 10})
		if err != nil || len(events) != 1 || events[0].Actor != audit.ActorMember || events[0].SubjectID != res.Member.ID || events[0].ClientAddr != addrDefault {
			t.Errorf("events %+v, %v", events, err)
		}
		// And the new password signs in from another browser.
		if res := e.browser().TrySignIn(e.a, "nia@example.com", newPassword); res.Status != http.StatusSeeOther {
			t.Errorf("sign-in with the chosen password: %d", res.Status)
		}
	})
}

func TestInvitationOfAnIdentityWithAPassword(t *testing.T) {
	e := newEnv(t)
	before := e.member(annEmail).PasswordHash
	res, link := e.invite(e.b, annEmail, "Someone Else", storage.RoleLecturer)
	if res.Created || !res.HasPassword || res.Member.ID != e.ann.ID || res.Member.Name != "Ann Example" {
		t.Fatalf("invite result %+v", res)
	}
	roles, err := e.gs.GetRoles(e.ctx(e.b), e.ann.ID)
	if err != nil || !slices.Equal(roles, []storage.Role{storage.RoleLecturer}) {
		t.Fatalf("roles at B %v, %v", roles, err)
	}
	b := e.browser()
	page := b.Get(link)
	if page.Status != http.StatusOK || !strings.Contains(page.Body, "You now belong to Lumen") || strings.Contains(page.Body, `name="password"`) {
		t.Fatalf("invitation page %d:\n%s", page.Status, page.Body)
	}
	token, csrf := b.openForm(link)
	// A password posted anyway is ignored: an invitation never changes an existing password.
	done := b.Post(e.url(e.b, account.InvitationPath), url.Values{"token": {token}, "password": {newPassword}, "password2": {newPassword}, login.CSRFField: {csrf}})
	if done.Status != http.StatusSeeOther || done.Header.Get("Location") != login.LoginPath {
		t.Fatalf("POST /invitation: %d %s", done.Status, done.Header.Get("Location"))
	}
	if b.SignedIn(e.b) {
		t.Error("joining with an existing password signed the browser in")
	}
	if e.member(annEmail).PasswordHash != before {
		t.Fatal("the invitation changed the password")
	}
	if res := e.browser().TrySignIn(e.b, annEmail, memberPass); res.Status != http.StatusSeeOther {
		t.Errorf("sign-in at B with the old password: %d", res.Status)
	}
	if page := b.Get(link); page.Status != http.StatusGone {
		t.Errorf("used link: %d", page.Status)
	}

	// Invited again at A, where Ann is a student, she keeps that role and gains the new one.
	e.invite(e.a, annEmail, "", storage.RoleLecturer)
	roles, err = e.gs.GetRoles(e.ctx(e.a), e.ann.ID)
	if err != nil || !slices.Equal(roles, []storage.Role{storage.RoleLecturer, storage.RoleStudent}) {
		t.Fatalf("roles at A %v, %v", roles, err)
	}
}

func TestReinvitationReplacesTheLink(t *testing.T) {
	e := newEnv(t)
	_, first := e.invite(e.a, "nia@example.com", "Nia")
	_, second := e.invite(e.a, "nia@example.com", "Nia")
	b := e.browser()
	if page := b.Get(first); page.Status != http.StatusGone || !strings.Contains(page.Body, "expired or was already used") {
		t.Errorf("replaced link: %d\n%s", page.Status, page.Body)
	}
	if res := b.setPassword(second, newPassword, nil); res.Status != http.StatusSeeOther {
		t.Errorf("latest link: %d", res.Status)
	}
}

func TestLinksAreSingleUseAndExpire(t *testing.T) {
	e := newEnv(t)

	t.Run("invitation used twice", func(t *testing.T) {
		_, link := e.invite(e.a, "one@example.com", "One")
		b := e.browser()
		token, csrf := b.openForm(link)
		form := url.Values{"token": {token}, "password": {newPassword}, "password2": {newPassword}, login.CSRFField: {csrf}}
		if res := b.Post(e.url(e.a, account.InvitationPath), form); res.Status != http.StatusSeeOther {
			t.Fatalf("first use: %d", res.Status)
		}
		if res := b.Post(e.url(e.a, account.InvitationPath), form); res.Status != http.StatusGone {
			t.Errorf("second use: %d", res.Status)
		}
	})
	t.Run("invitation after 7 days", func(t *testing.T) {
		_, link := e.invite(e.a, "two@example.com", "Two")
		e.clock.Advance(account.DefaultInvitationTTL - time.Second)
		b := e.browser()
		token, csrf := b.openForm(link)
		e.clock.Advance(time.Second)
		if page := b.Get(link); page.Status != http.StatusGone {
			t.Errorf("expired link GET: %d", page.Status)
		}
		form := url.Values{"token": {token}, "password": {newPassword}, "password2": {newPassword}, login.CSRFField: {csrf}}
		if res := b.Post(e.url(e.a, account.InvitationPath), form); res.Status != http.StatusGone {
			t.Errorf("expired link POST: %d", res.Status)
		}
	})
	t.Run("reset used twice", func(t *testing.T) {
		link := e.resetLink(e.a, annEmail)
		b := e.browser()
		token, csrf := b.openForm(link)
		form := url.Values{"token": {token}, "password": {newPassword}, "password2": {newPassword}, login.CSRFField: {csrf}}
		if res := b.Post(e.url(e.a, account.ResetPath), form); res.Status != http.StatusSeeOther || res.Header.Get("Location") != account.AccountPath {
			t.Fatalf("first use: %d %s", res.Status, res.Header.Get("Location"))
		}
		if res := b.Post(e.url(e.a, account.ResetPath), form); res.Status != http.StatusGone {
			t.Errorf("second use: %d", res.Status)
		}
		if page := b.Get(link); page.Status != http.StatusGone || !strings.Contains(page.Body, `href="/login/forgot"`) {
			t.Errorf("used link GET: %d\n%s", page.Status, page.Body)
		}
	})
	t.Run("reset after 30 minutes", func(t *testing.T) {
		link := e.resetLink(e.a, annEmail)
		e.clock.Advance(account.DefaultResetTTL)
		if page := e.browser().Get(link); page.Status != http.StatusGone {
			t.Errorf("expired link: %d", page.Status)
		}
	})
}

func TestResetLinkOfOneSchoolIsRefusedAtAnother(t *testing.T) {
	e := newEnv(t)
	schools.SetRoles(t, e.gs, e.b, e.ann.ID, storage.RoleStudent)
	link := e.resetLink(e.a, annEmail)
	u, _ := url.Parse(link)
	token := u.Query().Get("token")
	b := e.browser()
	if page := b.Get(e.url(e.b, account.ResetPath) + "?token=" + token); page.Status != http.StatusGone {
		t.Errorf("GET at B: %d", page.Status)
	}
	// A form of B's own, carrying A's token.
	form := b.Get(e.url(e.b, account.ForgotPath))
	res := b.Post(e.url(e.b, account.ResetPath), url.Values{
		"token": {token}, "password": {newPassword}, "password2": {newPassword}, login.CSRFField: {form.CSRF(t)},
	})
	if res.Status != http.StatusGone {
		t.Errorf("POST at B: %d", res.Status)
	}
	if password.Verify(memberPass, e.member(annEmail).PasswordHash) != nil {
		t.Error("the password changed")
	}
	// At A the link still works.
	if res := b.setPassword(link, newPassword, nil); res.Status != http.StatusSeeOther {
		t.Errorf("at A: %d", res.Status)
	}
}

// pairFor stores a live token pair of Ann's with a client of school s.
func (e *env) pairFor(s *school.School, clientID, sig string) {
	e.t.Helper()
	ctx := e.ctx(s)
	if _, err := e.gs.GetClient(ctx, clientID); err != nil {
		_, err := e.gs.CreateClient(ctx, storage.Client{
			ID: clientID, Kind: storage.ClientMember, Name: clientID, TokenEndpointAuthMethod: "none",
			ApplicationType: "web", RedirectURIs: []string{"https://app.example/cb"}, Scopes: []string{"openid"},
			CreatedAt: e.clock.Now(), UpdatedAt: e.clock.Now(),
		})
		if err != nil {
			e.t.Fatal(err)
		}
	}
	refresh := e.clock.Now().Add(30 * 24 * time.Hour)
	_, err := e.gs.CreateTokenPair(ctx, storage.TokenPair{
		RequestID: "req-" + sig, ClientID: clientID, MemberID: e.ann.ID, AccessSignature: "at-" + sig, RefreshSignature: "rt-" + sig,
		Scopes: []string{"openid"}, Data: []byte(`{}`), RequestedAt: e.clock.Now(), AccessExpiresAt: e.clock.Now().Add(time.Hour),
		RefreshExpiresAt: &refresh,
	})
	if err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) pairRevoked(s *school.School, sig string) bool {
	e.t.Helper()
	p, err := e.gs.GetTokenPair(e.ctx(s), storage.AccessToken, "at-"+sig)
	if err != nil {
		e.t.Fatal(err)
	}
	return p.RevokedAt != nil
}

func TestResetEndsSessionsAndOptionallyApplications(t *testing.T) {
	for _, signOutApps := range []bool{false, true} {
		t.Run(map[bool]string{false: "grants kept", true: "grants revoked"}[signOutApps], func(t *testing.T) {
			e := newEnv(t)
			schools.SetRoles(t, e.gs, e.b, e.ann.ID, storage.RoleStudent)
			other := e.browser()
			other.SignIn(e.a, annEmail)
			other.SignIn(e.b, annEmail)
			if !other.SignedIn(e.a) || !other.SignedIn(e.b) {
				t.Fatal("the second browser did not sign in")
			}
			e.pairFor(e.a, "app-a", "1")
			e.pairFor(e.b, "app-b", "2")

			link := e.resetLink(e.a, annEmail)
			extra := url.Values{}
			if signOutApps {
				extra.Set("signout_apps", "yes")
			}
			b := e.browser()
			if res := b.setPassword(link, newPassword, extra); res.Status != http.StatusSeeOther || res.Header.Get("Location") != account.AccountPath {
				t.Fatalf("reset: %d %s\n%s", res.Status, res.Header.Get("Location"), res.Body)
			}
			if !b.SignedIn(e.a) {
				t.Error("the reset did not sign this browser in")
			}
			if other.SignedIn(e.a) || other.SignedIn(e.b) {
				t.Error("the other browser's sessions survived the reset")
			}
			for _, p := range []struct {
				s   *school.School
				sig string
			}{{e.a, "1"}, {e.b, "2"}} {
				if got := e.pairRevoked(p.s, p.sig); got != signOutApps {
					t.Errorf("pair at %s revoked = %v, want %v", p.s.Origin, got, signOutApps)
				}
			}
			if password.Verify(newPassword, e.member(annEmail).PasswordHash) != nil {
				t.Error("the new password was not stored")
			}
			events, err := e.gs.ListSecurityEvents(e.ctx(e.a), audit.Filter{MemberID: e.ann.ID, Kinds: []audit.Kind{audit.KindPasswordResetCompleted}, Limit: 10})
			if err != nil || len(events) != 1 || events[0].SubjectID != e.ann.ID || (events[0].Detail == "signed out of all applications") != signOutApps {
				t.Errorf("events %+v, %v", events, err)
			}
		})
	}
}

func TestPasswordChangedElsewhereKillsResetLink(t *testing.T) {
	e := newEnv(t)
	link := e.resetLink(e.a, annEmail)
	b := e.browser()
	token, csrf := b.openForm(link)
	hash, err := password.Hash("changed another way", cheap)
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.gs.UpdateMember(t.Context(), e.ann.ID, func(m storage.Member) (storage.Member, error) {
		m.PasswordHash = hash
		return m, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if page := b.Get(link); page.Status != http.StatusGone {
		t.Errorf("GET: %d", page.Status)
	}
	res := b.Post(e.url(e.a, account.ResetPath), url.Values{"token": {token}, "password": {newPassword}, "password2": {newPassword}, login.CSRFField: {csrf}})
	if res.Status != http.StatusGone {
		t.Errorf("POST: %d", res.Status)
	}
	if e.member(annEmail).PasswordHash != hash {
		t.Error("the dead link changed the password")
	}
}

func TestResetRefusesAWeakPasswordOnTheForm(t *testing.T) {
	e := newEnv(t)
	link := e.resetLink(e.a, annEmail)
	b := e.browser()
	for _, tc := range []struct{ pw, pw2, want string }{
		{"short", "short", password.ErrTooShort.Error()},
		{strings.Repeat("x", password.MaxLength+1), strings.Repeat("x", password.MaxLength+1), password.ErrTooLongNew.Error()},
		{newPassword, newPassword + "x", account.MsgPasswordsDiffer},
	} {
		token, csrf := b.openForm(link)
		res := b.Post(e.url(e.a, account.ResetPath), url.Values{"token": {token}, "password": {tc.pw}, "password2": {tc.pw2}, login.CSRFField: {csrf}})
		if res.Status != http.StatusOK || !strings.Contains(res.Body, `name="password2"`) || !strings.Contains(res.Body, `role="alert"`) {
			t.Errorf("%.20q: %d\n%s", tc.pw, res.Status, res.Body)
		}
		if tc.want != "" && !strings.Contains(res.Body, tc.want) {
			t.Errorf("%.20q: the page does not say %q", tc.pw, tc.want)
		}
	}
	if res := b.setPassword(link, newPassword, nil); res.Status != http.StatusSeeOther {
		t.Errorf("the link died of refused passwords: %d", res.Status)
	}
}

// headersWithoutDate is h without the Date header, for comparing two answers.
func headersWithoutDate(h http.Header) http.Header {
	c := h.Clone()
	c.Del("Date")
	return c
}

func TestForgotAnswersTheSameForKnownAndUnknownAddresses(t *testing.T) {
	e := newEnv(t)
	known, unknown := e.browser(), e.browser()
	known.Addr, unknown.Addr = "192.0.2.10", "192.0.2.11"
	createdBefore := e.store.createLinks.Load()
	a := known.forgot(e.a, annEmail)
	b := unknown.forgot(e.a, "nobody@example.com")
	if a.Status != http.StatusOK || b.Status != http.StatusOK {
		t.Fatalf("statuses %d, %d", a.Status, b.Status)
	}
	if a.Body != b.Body {
		t.Errorf("bodies differ:\n%s\n---\n%s", a.Body, b.Body)
	}
	ha, hb := headersWithoutDate(a.Header), headersWithoutDate(b.Header)
	for _, h := range []http.Header{ha, hb} {
		if len(h.Values("Set-Cookie")) != 0 {
			t.Errorf("the answer sets cookies: %v", h.Values("Set-Cookie"))
		}
	}
	if !equalHeaders(ha, hb) {
		t.Errorf("headers differ:\n%v\n%v", ha, hb)
	}
	if !strings.Contains(a.Body, "If an account exists for that address, we have sent a link to it. It works for 30 minutes.") ||
		strings.Contains(a.Body, annEmail) {
		t.Errorf("answer:\n%s", a.Body)
	}
	// The request itself did the same store work for both: one outbox request each, no link.
	if got := e.outbox.Kinds(); !slices.Equal(got, []string{account.KindResetRequest, account.KindResetRequest}) {
		t.Errorf("outbox entries %v, want two %s", got, account.KindResetRequest)
	}
	if n := e.store.createLinks.Load() - createdBefore; n != 0 {
		t.Errorf("%d links created before the worker ran", n)
	}
	msgs := e.deliver()
	if len(msgs) != 1 || to(msgs[0]) != annEmail {
		t.Fatalf("sent %+v", msgs)
	}
	e.linkIn(msgs[0])
	if strings.Contains(e.log.String(), "nobody@example.com") || strings.Contains(e.log.String(), annEmail) {
		t.Error("an address appears in the log")
	}
}

func equalHeaders(a, b http.Header) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

// TestForgotTiming measures the forgotten-password answer for a member's address and a
// stranger's and logs the medians; it asserts nothing about durations (a busy machine decides
// those). What keeps the two alike is structural and checked in
// TestForgotAnswersTheSameForKnownAndUnknownAddresses: the request does the same store work
// (one outbox request, no lookup) whoever the address belongs to.
func TestForgotTiming(t *testing.T) {
	e := newEnv(t)
	const rounds = 15
	var known, unknown []time.Duration
	for i := range rounds {
		for _, tc := range []struct {
			email string
			into  *[]time.Duration
		}{{annEmail, &known}, {"nobody@example.com", &unknown}} {
			b := e.browser()
			b.Addr = fmt.Sprintf("198.51.100.%d", 1+i*2+len(*tc.into)%2)
			form := b.Get(e.url(e.a, account.ForgotPath))
			csrf := form.CSRF(t)
			start := time.Now()
			res := b.Post(e.url(e.a, account.ForgotPath), url.Values{"email": {tc.email}, login.CSRFField: {csrf}})
			*tc.into = append(*tc.into, time.Since(start))
			if res.Status != http.StatusOK {
				t.Fatalf("POST: %d", res.Status)
			}
		}
		e.clock.Advance(time.Hour)
	}
	t.Logf("median answer: member's address %v, stranger's %v (%d rounds; informational only)", median(known), median(unknown), rounds)
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func TestForgotIsLimitedPerClientAddress(t *testing.T) {
	e := newEnv(t)
	b := e.browser()
	for i := range account.DefaultResetAddressLimit.Max {
		if res := b.forgot(e.a, "nobody@example.com"); res.Status != http.StatusOK {
			t.Fatalf("request %d: %d", i+1, res.Status)
		}
	}
	res := b.forgot(e.a, annEmail)
	if res.Status != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" || strings.Contains(res.Body, annEmail) {
		t.Fatalf("over the budget: %d %v\n%s", res.Status, res.Header, res.Body)
	}
	other := e.browser()
	other.Addr = "192.0.2.99"
	if res := other.forgot(e.a, annEmail); res.Status != http.StatusOK {
		t.Errorf("another address: %d", res.Status)
	}
	if n := len(e.outbox.Kinds()); n != account.DefaultResetAddressLimit.Max+1 {
		t.Errorf("%d outbox entries, want %d", n, account.DefaultResetAddressLimit.Max+1)
	}
}

func TestForgotIsLimitedPerAccountSilently(t *testing.T) {
	e := newEnv(t)
	for i := range 5 {
		b := e.browser()
		b.Addr = fmt.Sprintf("203.0.113.%d", i+1)
		if res := b.forgot(e.a, annEmail); res.Status != http.StatusOK {
			t.Fatalf("request %d: %d", i+1, res.Status)
		}
	}
	msgs := e.deliver()
	if len(msgs) != account.DefaultResetAccountLimit.Max {
		t.Fatalf("%d messages, want %d", len(msgs), account.DefaultResetAccountLimit.Max)
	}
	for _, m := range msgs {
		e.linkIn(m)
	}
	// A new window sends again.
	e.clock.Advance(account.DefaultResetAccountLimit.Window)
	e.browser().forgot(e.a, annEmail)
	if msgs := e.deliver(); len(msgs) != 1 {
		t.Errorf("after the window: %d messages", len(msgs))
	} else {
		e.linkIn(msgs[0])
	}
}

func TestForgotSendsOnlyToMembersOfTheSchool(t *testing.T) {
	e := newEnv(t)
	// Ann is a member of A only.
	if res := e.browser().forgot(e.b, annEmail); res.Status != http.StatusOK {
		t.Fatalf("POST at B: %d", res.Status)
	}
	if msgs := e.deliver(); len(msgs) != 0 {
		t.Errorf("a non-member was sent %+v", msgs)
	}
}

func TestFormsRefuseMissingCSRF(t *testing.T) {
	e := newEnv(t)
	_, invitation := e.invite(e.a, "nia@example.com", "Nia")
	reset := e.resetLink(e.a, annEmail)
	b := e.browser()
	invToken, _ := b.openForm(invitation)
	resetToken, _ := b.openForm(reset)
	before := len(e.outbox.Kinds())
	for _, tc := range []struct {
		path string
		form url.Values
	}{
		{account.ForgotPath, url.Values{"email": {annEmail}}},
		{account.ResetPath, url.Values{"token": {resetToken}, "password": {newPassword}, "password2": {newPassword}}},
		{account.InvitationPath, url.Values{"token": {invToken}, "password": {newPassword}, "password2": {newPassword}}},
	} {
		for _, csrf := range []string{"", "forged"} {
			f := url.Values{}
			for k, v := range tc.form {
				f[k] = v
			}
			if csrf != "" {
				f.Set(login.CSRFField, csrf)
			}
			if res := b.Post(e.url(e.a, tc.path), f); res.Status != http.StatusForbidden {
				t.Errorf("POST %s with csrf %q: %d", tc.path, csrf, res.Status)
			}
		}
		// A browser without the form's cookie, with a token from another browser's form.
		stranger := e.browser()
		f := url.Values{}
		for k, v := range tc.form {
			f[k] = v
		}
		f.Set(login.CSRFField, b.Get(e.url(e.a, account.ForgotPath)).CSRF(t))
		if res := stranger.Post(e.url(e.a, tc.path), f); res.Status != http.StatusForbidden {
			t.Errorf("POST %s without the cookie: %d", tc.path, res.Status)
		}
	}
	if n := len(e.outbox.Kinds()) - before; n != 0 {
		t.Errorf("%d outbox entries from refused forms", n)
	}
	if password.Verify(memberPass, e.member(annEmail).PasswordHash) != nil || e.member("nia@example.com").PasswordHash != "" {
		t.Error("a refused form changed a password")
	}
	// Both links are still live.
	if res := b.setPassword(invitation, newPassword, nil); res.Status != http.StatusSeeOther {
		t.Errorf("invitation after refused forms: %d", res.Status)
	}
	if res := b.setPassword(reset, newPassword, nil); res.Status != http.StatusSeeOther {
		t.Errorf("reset after refused forms: %d", res.Status)
	}
}

func TestJunkTokensNeverReachTheStore(t *testing.T) {
	e := newEnv(t)
	b := e.browser()
	form := b.Get(e.url(e.a, account.ForgotPath))
	csrf := form.CSRF(t)
	junk := []string{"", "x", strings.Repeat("A", 21) + "\r" + strings.Repeat("A", 21), strings.Repeat("A", 42), strings.Repeat("A", 44), strings.Repeat("!", 43), "' OR 1=1 --", strings.Repeat("a", 5000)}
	for _, tok := range junk {
		for _, path := range []string{account.ResetPath, account.InvitationPath} {
			if res := b.Get(e.url(e.a, path) + "?token=" + url.QueryEscape(tok)); res.Status != http.StatusGone {
				t.Errorf("GET %s?token=%q: %d", path, tok, res.Status)
			}
			res := b.Post(e.url(e.a, path), url.Values{"token": {tok}, "password": {newPassword}, "password2": {newPassword}, login.CSRFField: {csrf}})
			if res.Status != http.StatusGone {
				t.Errorf("POST %s token=%q: %d", path, tok, res.Status)
			}
		}
	}
	if g, c := e.store.getLinks.Load(), e.store.consumeLinks.Load(); g != 0 || c != 0 {
		t.Errorf("junk reached the store: %d GetLink, %d ConsumeLink", g, c)
	}
	// A well-formed token that was never issued is looked up, and refused the same way.
	if res := b.Get(e.url(e.a, account.ResetPath) + "?token=" + randomToken()); res.Status != http.StatusGone {
		t.Errorf("unknown token: %d", res.Status)
	}
}

func TestInviteRefusesBadInput(t *testing.T) {
	e := newEnv(t)
	for _, inv := range []account.Invitation{
		{Email: ""}, {Email: "not-an-address"}, {Email: strings.Repeat("a", 250) + "@x.example"},
		{Email: "single@label"}, {Email: "Ann <ann@example.com>"}, {Email: "two@@example.com"},
		{Email: "ok@example.com", Roles: []storage.Role{"emperor"}},
	} {
		if _, err := e.svc.Invite(e.ctx(e.a), inv); err == nil {
			t.Errorf("Invite(%+v) succeeded", inv)
		}
	}
	if _, err := e.svc.Invite(t.Context(), account.Invitation{Email: "ok@example.com"}); err == nil {
		t.Error("Invite without a school succeeded")
	}
	if n := len(e.outbox.Kinds()); n != 0 {
		t.Errorf("%d outbox entries from refused invitations", n)
	}
}

func TestConcurrentUsesOfOneLinkSucceedOnce(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		link := e.resetLink(e.a, annEmail)
		const n = 4
		type attempt struct {
			b    *browser
			form url.Values
		}
		var attempts []attempt
		for range n {
			b := e.browser()
			token, csrf := b.openForm(link)
			attempts = append(attempts, attempt{b, url.Values{"token": {token}, "password": {newPassword}, "password2": {newPassword}, login.CSRFField: {csrf}}})
		}
		statuses := make(chan int, n)
		for _, a := range attempts {
			go func() {
				res, err := a.b.Try(http.MethodPost, e.url(e.a, account.ResetPath), a.form)
				if err != nil {
					t.Error(err)
				}
				statuses <- res.Status
			}()
		}
		counts := map[int]int{}
		for range n {
			counts[<-statuses]++
		}
		if counts[http.StatusSeeOther] != 1 || counts[http.StatusGone] != n-1 {
			t.Errorf("statuses %v, want one 303 and %d 410", counts, n-1)
		}
	})
}

func TestForgotWithoutAnAddressShowsTheForm(t *testing.T) {
	e := newEnv(t)
	res := e.browser().forgot(e.a, "  ")
	if res.Status != http.StatusOK || !strings.Contains(res.Body, account.MsgEmailMissing) || !strings.Contains(res.Body, `name="email"`) {
		t.Errorf("empty address: %d\n%s", res.Status, res.Body)
	}
	if n := len(e.outbox.Kinds()); n != 0 {
		t.Errorf("%d outbox entries", n)
	}
}

func TestInvitationAndItsMailCommitTogether(t *testing.T) {
	e := newEnv(t)
	e.outbox.fail.Store(true)
	if _, err := e.svc.Invite(e.ctx(e.a), account.Invitation{Email: "nia@example.com", Name: "Nia"}); err == nil {
		t.Fatal("Invite succeeded without its e-mail")
	}
	if _, err := e.svc.Invite(e.ctx(e.b), account.Invitation{Email: annEmail, Roles: []storage.Role{storage.RoleLecturer}}); err == nil {
		t.Fatal("Invite succeeded without its e-mail")
	}
	if _, err := e.gs.GetMemberByEmail(t.Context(), "nia@example.com"); err == nil {
		t.Error("the identity of a failed invitation was kept")
	}
	if roles, err := e.gs.GetRoles(e.ctx(e.b), e.ann.ID); err != nil || len(roles) != 0 {
		t.Errorf("roles of a failed invitation: %v, %v", roles, err)
	}
	if e.store.createLinks.Load() == 0 {
		t.Error("the failure came before the link: the test proves nothing")
	}
	e.outbox.fail.Store(false)
	if msgs := e.deliver(); len(msgs) != 0 {
		t.Errorf("sent %+v", msgs)
	}
}

// TestSendResetLink: an operator's reset link is the sign-in page's link and message, made at
// once, for a member of the school only; refusals say so and queue nothing.
func TestSendResetLink(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct {
		school *school.School
		email  string
		want   error
	}{
		{e.b, annEmail, storage.ErrNotFound}, // Ann belongs to A only
		{e.a, "nobody@example.com", storage.ErrNotFound},
		{e.a, "not-an-address", storage.ErrInvalidArgument},
		{e.a, "Ann <ann@example.com>", storage.ErrInvalidArgument},
	} {
		if err := e.svc.SendResetLink(e.ctx(c.school), c.email, audit.Event{Actor: audit.ActorCLI}); !errors.Is(err, c.want) {
			t.Errorf("SendResetLink(school %d, %q) = %v, want %v", c.school.SchoolID, c.email, err, c.want)
		}
	}
	if err := e.svc.SendResetLink(t.Context(), annEmail, audit.Event{Actor: audit.ActorCLI}); err == nil {
		t.Error("SendResetLink without a school succeeded")
	}
	if kinds := e.outbox.Kinds(); len(kinds) != 0 {
		t.Errorf("refused reset links queued %q", kinds)
	}

	if err := e.svc.SendResetLink(e.ctx(e.a), " Ann@Example.COM ", audit.Event{Actor: audit.ActorCLI}); err != nil {
		t.Fatal(err)
	}
	msgs := e.deliver()
	if len(msgs) != 1 || !strings.HasPrefix(msgs[0].Subject, "Reset your password") || to(msgs[0]) != annEmail {
		t.Fatalf("reset sent %+v", msgs)
	}
	link := e.linkIn(msgs[0])
	if !strings.HasPrefix(link, e.url(e.a, account.ResetPath)) {
		t.Errorf("link %s is not on school A's origin", link)
	}
	if res := e.browser().setPassword(link, newPassword, nil); res.Status != http.StatusSeeOther {
		t.Fatalf("set password through the link: %d", res.Status)
	}
	if password.Verify(newPassword, e.member(annEmail).PasswordHash) != nil {
		t.Error("the password did not change")
	}
}

// holderEmail is the address of the sign-in that holds newGatedEnv's hash slot.
const holderEmail = "holder@example.com"

// slotHolder is the sign-in pages' store of newGatedEnv: a sign-in of holderEmail, which looks
// its member up inside its hash slot, stops there until released.
type slotHolder struct {
	login.Store
	entered, release chan struct{}
}

func (s *slotHolder) GetMemberByEmail(ctx context.Context, email string) (storage.Member, error) {
	if email == holderEmail {
		s.entered <- struct{}{}
		<-s.release
	}
	return s.Store.GetMemberByEmail(ctx, email)
}

// newGatedEnv is an env on SQLite whose sign-in pages have one hash slot and allow no wait for
// it. hold takes that slot with a sign-in stopped inside it (channels, not timing) and returns
// what gives it back.
func newGatedEnv(t *testing.T) (e *env, hold func() (release func())) {
	var s *slotHolder
	e = newEnvWith(t, gormstore.DriverSQLite, func(d *login.Deps) {
		s = &slotHolder{Store: d.Store, entered: make(chan struct{}), release: make(chan struct{})}
		d.Store, d.HashSlots, d.HashWait = s, 1, -1
	})
	hold = func() func() {
		b := e.browser()
		f := formHaving(t, b.Get(e.url(e.a, login.LoginPath)).Body, "password")
		f.Set("email", holderEmail)
		f.Set("password", "any password")
		done := make(chan error, 1)
		go func() {
			_, err := b.Try(http.MethodPost, e.url(e.a, login.LoginPath), f)
			done <- err
		}()
		<-s.entered
		return func() {
			s.release <- struct{}{}
			if err := <-done; err != nil {
				t.Error(err)
			}
		}
	}
	return e, hold
}

// Every new password of a web form is hashed in one of the sign-in form's hash slots: with the
// only slot taken (and no wait allowed) the password change, the reset and the invitation
// answer 503 with Retry-After and change nothing; once the slot is free the same forms work,
// the links unused.
func TestNewPasswordsTakeAHashSlot(t *testing.T) {
	e, hold := newGatedEnv(t)
	here := e.browser()
	here.SignIn(e.a, annEmail)
	resetLink := e.resetLink(e.a, bobEmail)
	_, invitation := e.invite(e.a, "nia@example.com", "Nia")
	change := url.Values{"current_password": {memberPass}, "new_password": {newPassword}, "repeat_password": {newPassword}}
	reset, invited := e.browser(), e.browser()
	posts := map[string]func() *response{
		"change":     func() *response { return here.submit(e.a, account.PasswordPath, change) },
		"reset":      func() *response { return reset.setPassword(resetLink, newPassword, nil) },
		"invitation": func() *response { return invited.setPassword(invitation, newPassword, nil) },
	}

	release := hold()
	for name, post := range posts {
		if res := post(); res.Status != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" {
			t.Errorf("%s with the slot taken: %d, Retry-After %q", name, res.Status, res.Header.Get("Retry-After"))
		}
	}
	release()
	for _, email := range []string{annEmail, bobEmail} {
		if e.member(email).PasswordHash != cheapHash {
			t.Errorf("%s: the password changed while no hash slot was free", email)
		}
	}
	if e.member("nia@example.com").PasswordHash != "" {
		t.Error("the invitation set a password while no hash slot was free")
	}

	for name, post := range posts {
		if res := post(); res.Status != http.StatusSeeOther {
			t.Errorf("%s with the slot free: %d\n%s", name, res.Status, res.Body)
		}
	}
	for _, email := range []string{annEmail, bobEmail, "nia@example.com"} {
		if password.Verify(newPassword, e.member(email).PasswordHash) != nil {
			t.Errorf("%s: the new password was not stored", email)
		}
	}
}
