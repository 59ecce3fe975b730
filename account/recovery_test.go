package account_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/proctorhq/proctor/account"
	"github.com/proctorhq/proctor/consent"
	"github.com/proctorhq/proctor/password"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/gormstore/storetest"
)

func TestInvitationOfANewAddress(t *testing.T) {
	for _, backend := range storetest.Backends() {
		t.Run(backend, func(t *testing.T) {
			e := newEnvOn(t, backend)
			res, link := e.invite(hostA, "Nia@Example.com", "Nia account.New")
			if !res.Created || res.HasPassword || res.Member.Email != "nia@example.com" || res.Member.PasswordHash != "" {
				t.Fatalf("invite result %+v", res)
			}
			if !strings.HasPrefix(link, "http://a.test/invitation?token=") {
				t.Fatalf("link %s", link)
			}
			roles, err := e.gs.GetRoles(e.ctx(hostA), res.Member.ID)
			if err != nil || !slices.Equal(roles, []storage.Role{storage.RoleStudent}) {
				t.Fatalf("roles %v, %v", roles, err)
			}

			b := e.browser()
			// Opening the link twice (a mail scanner, then the person) uses nothing.
			for range 2 {
				page := b.get(link)
				if page.status != http.StatusOK || !strings.Contains(page.body, "Nia account.New") || !strings.Contains(page.body, "nia@example.com") ||
					!strings.Contains(page.body, `name="password2"`) {
					t.Fatalf("invitation page %d:\n%s", page.status, page.body)
				}
				if page.header.Get("Cache-Control") != "no-store" || page.header.Get("Content-Security-Policy") != consent.PagePolicy {
					t.Errorf("headers %v", page.header)
				}
			}
			done := b.setPassword(link, newPassword, nil)
			if done.status != http.StatusSeeOther || done.location() != account.AccountPath {
				t.Fatalf("POST /invitation: %d %s\n%s", done.status, done.location(), done.body)
			}
			if !b.signedIn(hostA) {
				t.Fatal("the session cookie does not work at /login/done")
			}
			if password.Verify(newPassword, e.member("nia@example.com").PasswordHash) != nil {
				t.Error("the chosen password was not stored")
			}
			if page := b.get(link); page.status != http.StatusGone {
				t.Errorf("used link: %d", page.status)
			}
			events, err := e.gs.ListMemberEvents(e.ctx(hostA), res.Member.ID, 10)
			if err != nil || len(events) != 1 || events[0].Kind != account.EventInvitationUsed || events[0].ClientAddr != addrDefault {
				t.Errorf("events %+v, %v", events, err)
			}
			// And the new password signs in from another browser.
			if res := e.browser().signIn(hostA, "nia@example.com", newPassword); res.status != http.StatusSeeOther {
				t.Errorf("sign-in with the chosen password: %d", res.status)
			}
		})
	}
}

func TestInvitationOfAnIdentityWithAPassword(t *testing.T) {
	e := newEnv(t)
	before := e.member(annEmail).PasswordHash
	res, link := e.invite(hostB, annEmail, "Someone Else", storage.RoleLecturer)
	if res.Created || !res.HasPassword || res.Member.ID != e.ann.ID || res.Member.Name != "Ann Example" {
		t.Fatalf("invite result %+v", res)
	}
	roles, err := e.gs.GetRoles(e.ctx(hostB), e.ann.ID)
	if err != nil || !slices.Equal(roles, []storage.Role{storage.RoleLecturer}) {
		t.Fatalf("roles at B %v, %v", roles, err)
	}
	b := e.browser()
	page := b.get(link)
	if page.status != http.StatusOK || !strings.Contains(page.body, "You now belong to School B") || strings.Contains(page.body, `name="password"`) {
		t.Fatalf("invitation page %d:\n%s", page.status, page.body)
	}
	token, csrf := b.openForm(link)
	// A password posted anyway is ignored: an invitation never changes an existing password.
	done := b.post("http://"+hostB+account.InvitationPath, url.Values{"token": {token}, "password": {newPassword}, "password2": {newPassword}, consent.CSRFField: {csrf}})
	if done.status != http.StatusSeeOther || done.location() != consent.LoginPath {
		t.Fatalf("POST /invitation: %d %s", done.status, done.location())
	}
	if b.signedIn(hostB) {
		t.Error("joining with an existing password signed the browser in")
	}
	if e.member(annEmail).PasswordHash != before {
		t.Fatal("the invitation changed the password")
	}
	if res := e.browser().signIn(hostB, annEmail, annPassword); res.status != http.StatusSeeOther {
		t.Errorf("sign-in at B with the old password: %d", res.status)
	}
	if page := b.get(link); page.status != http.StatusGone {
		t.Errorf("used link: %d", page.status)
	}

	// Invited again at A, where Ann is a student, she keeps that role and gains the new one.
	e.invite(hostA, annEmail, "", storage.RoleLecturer)
	roles, err = e.gs.GetRoles(e.ctx(hostA), e.ann.ID)
	if err != nil || !slices.Equal(roles, []storage.Role{storage.RoleLecturer, storage.RoleStudent}) {
		t.Fatalf("roles at A %v, %v", roles, err)
	}
}

func TestReinvitationReplacesTheLink(t *testing.T) {
	e := newEnv(t)
	_, first := e.invite(hostA, "nia@example.com", "Nia")
	_, second := e.invite(hostA, "nia@example.com", "Nia")
	b := e.browser()
	if page := b.get(first); page.status != http.StatusGone || !strings.Contains(page.body, "expired or was already used") {
		t.Errorf("replaced link: %d\n%s", page.status, page.body)
	}
	if res := b.setPassword(second, newPassword, nil); res.status != http.StatusSeeOther {
		t.Errorf("latest link: %d", res.status)
	}
}

func TestLinksAreSingleUseAndExpire(t *testing.T) {
	e := newEnv(t)

	t.Run("invitation used twice", func(t *testing.T) {
		_, link := e.invite(hostA, "one@example.com", "One")
		b := e.browser()
		token, csrf := b.openForm(link)
		form := url.Values{"token": {token}, "password": {newPassword}, "password2": {newPassword}, consent.CSRFField: {csrf}}
		if res := b.post("http://"+hostA+account.InvitationPath, form); res.status != http.StatusSeeOther {
			t.Fatalf("first use: %d", res.status)
		}
		if res := b.post("http://"+hostA+account.InvitationPath, form); res.status != http.StatusGone {
			t.Errorf("second use: %d", res.status)
		}
	})
	t.Run("invitation after 7 days", func(t *testing.T) {
		_, link := e.invite(hostA, "two@example.com", "Two")
		e.clock.Advance(account.DefaultInvitationTTL - time.Second)
		b := e.browser()
		token, csrf := b.openForm(link)
		e.clock.Advance(time.Second)
		if page := b.get(link); page.status != http.StatusGone {
			t.Errorf("expired link GET: %d", page.status)
		}
		form := url.Values{"token": {token}, "password": {newPassword}, "password2": {newPassword}, consent.CSRFField: {csrf}}
		if res := b.post("http://"+hostA+account.InvitationPath, form); res.status != http.StatusGone {
			t.Errorf("expired link POST: %d", res.status)
		}
	})
	t.Run("reset used twice", func(t *testing.T) {
		link := e.resetLink(hostA, annEmail)
		b := e.browser()
		token, csrf := b.openForm(link)
		form := url.Values{"token": {token}, "password": {newPassword}, "password2": {newPassword}, consent.CSRFField: {csrf}}
		if res := b.post("http://"+hostA+account.ResetPath, form); res.status != http.StatusSeeOther || res.location() != account.AccountPath {
			t.Fatalf("first use: %d %s", res.status, res.location())
		}
		if res := b.post("http://"+hostA+account.ResetPath, form); res.status != http.StatusGone {
			t.Errorf("second use: %d", res.status)
		}
		if page := b.get(link); page.status != http.StatusGone || !strings.Contains(page.body, `href="/login/forgot"`) {
			t.Errorf("used link GET: %d\n%s", page.status, page.body)
		}
	})
	t.Run("reset after 30 minutes", func(t *testing.T) {
		link := e.resetLink(hostA, annEmail)
		e.clock.Advance(account.DefaultResetTTL)
		if page := e.browser().get(link); page.status != http.StatusGone {
			t.Errorf("expired link: %d", page.status)
		}
	})
}

func TestResetLinkOfOneSchoolIsRefusedAtAnother(t *testing.T) {
	e := newEnv(t)
	if err := e.gs.SetRoles(e.ctx(hostB), e.ann.ID, []storage.Role{storage.RoleStudent}); err != nil {
		t.Fatal(err)
	}
	link := e.resetLink(hostA, annEmail)
	u, _ := url.Parse(link)
	token := u.Query().Get("token")
	b := e.browser()
	if page := b.get("http://" + hostB + account.ResetPath + "?token=" + token); page.status != http.StatusGone {
		t.Errorf("GET at B: %d", page.status)
	}
	// A form of B's own, carrying A's token.
	form := b.get("http://" + hostB + account.ForgotPath)
	res := b.post("http://"+hostB+account.ResetPath, url.Values{
		"token": {token}, "password": {newPassword}, "password2": {newPassword}, consent.CSRFField: {csrfFrom(t, form.body)},
	})
	if res.status != http.StatusGone {
		t.Errorf("POST at B: %d", res.status)
	}
	if password.Verify(annPassword, e.member(annEmail).PasswordHash) != nil {
		t.Error("the password changed")
	}
	// At A the link still works.
	if res := b.setPassword(link, newPassword, nil); res.status != http.StatusSeeOther {
		t.Errorf("at A: %d", res.status)
	}
}

// pairFor stores a live token pair of Ann's with a client of the school at host.
func (e *env) pairFor(host, clientID, sig string) {
	e.t.Helper()
	ctx := e.ctx(host)
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

func (e *env) pairRevoked(host, sig string) bool {
	e.t.Helper()
	p, err := e.gs.GetTokenPair(e.ctx(host), storage.AccessToken, "at-"+sig)
	if err != nil {
		e.t.Fatal(err)
	}
	return p.RevokedAt != nil
}

func TestResetEndsSessionsAndOptionallyApplications(t *testing.T) {
	for _, signOutApps := range []bool{false, true} {
		t.Run(map[bool]string{false: "grants kept", true: "grants revoked"}[signOutApps], func(t *testing.T) {
			e := newEnv(t)
			if err := e.gs.SetRoles(e.ctx(hostB), e.ann.ID, []storage.Role{storage.RoleStudent}); err != nil {
				t.Fatal(err)
			}
			other := e.browser()
			other.signIn(hostA, annEmail, annPassword)
			other.signIn(hostB, annEmail, annPassword)
			if !other.signedIn(hostA) || !other.signedIn(hostB) {
				t.Fatal("the second browser did not sign in")
			}
			e.pairFor(hostA, "app-a", "1")
			e.pairFor(hostB, "app-b", "2")

			link := e.resetLink(hostA, annEmail)
			extra := url.Values{}
			if signOutApps {
				extra.Set("signout_apps", "yes")
			}
			b := e.browser()
			if res := b.setPassword(link, newPassword, extra); res.status != http.StatusSeeOther || res.location() != account.AccountPath {
				t.Fatalf("reset: %d %s\n%s", res.status, res.location(), res.body)
			}
			if !b.signedIn(hostA) {
				t.Error("the reset did not sign this browser in")
			}
			if other.signedIn(hostA) || other.signedIn(hostB) {
				t.Error("the other browser's sessions survived the reset")
			}
			for _, p := range []struct{ host, sig string }{{hostA, "1"}, {hostB, "2"}} {
				if got := e.pairRevoked(p.host, p.sig); got != signOutApps {
					t.Errorf("pair at %s revoked = %v, want %v", p.host, got, signOutApps)
				}
			}
			if password.Verify(newPassword, e.member(annEmail).PasswordHash) != nil {
				t.Error("the new password was not stored")
			}
			events, err := e.gs.ListMemberEvents(e.ctx(hostA), e.ann.ID, 10)
			if err != nil || len(events) != 1 || events[0].Kind != account.EventPasswordReset {
				t.Errorf("events %+v, %v", events, err)
			}
		})
	}
}

func TestPasswordChangedElsewhereKillsResetLink(t *testing.T) {
	e := newEnv(t)
	link := e.resetLink(hostA, annEmail)
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
	if page := b.get(link); page.status != http.StatusGone {
		t.Errorf("GET: %d", page.status)
	}
	res := b.post("http://"+hostA+account.ResetPath, url.Values{"token": {token}, "password": {newPassword}, "password2": {newPassword}, consent.CSRFField: {csrf}})
	if res.status != http.StatusGone {
		t.Errorf("POST: %d", res.status)
	}
	if e.member(annEmail).PasswordHash != hash {
		t.Error("the dead link changed the password")
	}
}

func TestResetRefusesAWeakPasswordOnTheForm(t *testing.T) {
	e := newEnv(t)
	link := e.resetLink(hostA, annEmail)
	b := e.browser()
	for _, tc := range []struct{ pw, pw2, want string }{
		{"short", "short", password.ErrTooShort.Error()},
		{strings.Repeat("x", password.MaxLength+1), strings.Repeat("x", password.MaxLength+1), password.ErrTooLongNew.Error()},
		{newPassword, newPassword + "x", account.MsgPasswordsDiffer},
	} {
		token, csrf := b.openForm(link)
		res := b.post("http://"+hostA+account.ResetPath, url.Values{"token": {token}, "password": {tc.pw}, "password2": {tc.pw2}, consent.CSRFField: {csrf}})
		if res.status != http.StatusOK || !strings.Contains(res.body, `name="password2"`) || !strings.Contains(res.body, `role="alert"`) {
			t.Errorf("%.20q: %d\n%s", tc.pw, res.status, res.body)
		}
		if tc.want != "" && !strings.Contains(res.body, tc.want) {
			t.Errorf("%.20q: the page does not say %q", tc.pw, tc.want)
		}
	}
	if res := b.setPassword(link, newPassword, nil); res.status != http.StatusSeeOther {
		t.Errorf("the link died of refused passwords: %d", res.status)
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
	known.addr, unknown.addr = "192.0.2.10", "192.0.2.11"
	createdBefore := e.store.createLinks.Load()
	a := known.forgot(hostA, annEmail)
	b := unknown.forgot(hostA, "nobody@example.com")
	if a.status != http.StatusOK || b.status != http.StatusOK {
		t.Fatalf("statuses %d, %d", a.status, b.status)
	}
	if a.body != b.body {
		t.Errorf("bodies differ:\n%s\n---\n%s", a.body, b.body)
	}
	ha, hb := headersWithoutDate(a.header), headersWithoutDate(b.header)
	for _, h := range []http.Header{ha, hb} {
		if len(h.Values("Set-Cookie")) != 0 {
			t.Errorf("the answer sets cookies: %v", h.Values("Set-Cookie"))
		}
	}
	if !equalHeaders(ha, hb) {
		t.Errorf("headers differ:\n%v\n%v", ha, hb)
	}
	if !strings.Contains(a.body, "If an account exists for that address, we have sent a link to it. It works for 30 minutes.") ||
		strings.Contains(a.body, annEmail) {
		t.Errorf("answer:\n%s", a.body)
	}
	// The request itself did the same store work for both: one outbox request each, no link.
	if got := e.outbox.Kinds(); !slices.Equal(got, []string{account.KindResetRequest, account.KindResetRequest}) {
		t.Errorf("outbox entries %v, want two %s", got, account.KindResetRequest)
	}
	if n := e.store.createLinks.Load() - createdBefore; n != 0 {
		t.Errorf("%d links created before the worker ran", n)
	}
	msgs := e.post.deliver()
	if len(msgs) != 1 || msgs[0].To != annEmail {
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
			b.addr = fmt.Sprintf("198.51.100.%d", 1+i*2+len(*tc.into)%2)
			form := b.get("http://" + hostA + account.ForgotPath)
			csrf := csrfFrom(t, form.body)
			start := time.Now()
			res := b.post("http://"+hostA+account.ForgotPath, url.Values{"email": {tc.email}, consent.CSRFField: {csrf}})
			*tc.into = append(*tc.into, time.Since(start))
			if res.status != http.StatusOK {
				t.Fatalf("POST: %d", res.status)
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
		if res := b.forgot(hostA, "nobody@example.com"); res.status != http.StatusOK {
			t.Fatalf("request %d: %d", i+1, res.status)
		}
	}
	res := b.forgot(hostA, annEmail)
	if res.status != http.StatusTooManyRequests || res.header.Get("Retry-After") == "" || strings.Contains(res.body, annEmail) {
		t.Fatalf("over the budget: %d %v\n%s", res.status, res.header, res.body)
	}
	other := e.browser()
	other.addr = "192.0.2.99"
	if res := other.forgot(hostA, annEmail); res.status != http.StatusOK {
		t.Errorf("another address: %d", res.status)
	}
	if n := len(e.outbox.Kinds()); n != account.DefaultResetAddressLimit.Max+1 {
		t.Errorf("%d outbox entries, want %d", n, account.DefaultResetAddressLimit.Max+1)
	}
}

func TestForgotIsLimitedPerAccountSilently(t *testing.T) {
	e := newEnv(t)
	for i := range 5 {
		b := e.browser()
		b.addr = fmt.Sprintf("203.0.113.%d", i+1)
		if res := b.forgot(hostA, annEmail); res.status != http.StatusOK {
			t.Fatalf("request %d: %d", i+1, res.status)
		}
	}
	msgs := e.post.deliver()
	if len(msgs) != account.DefaultResetAccountLimit.Max {
		t.Fatalf("%d messages, want %d", len(msgs), account.DefaultResetAccountLimit.Max)
	}
	for _, m := range msgs {
		e.linkIn(m)
	}
	// A new window sends again.
	e.clock.Advance(account.DefaultResetAccountLimit.Window)
	e.browser().forgot(hostA, annEmail)
	if msgs := e.post.deliver(); len(msgs) != 1 {
		t.Errorf("after the window: %d messages", len(msgs))
	} else {
		e.linkIn(msgs[0])
	}
}

func TestForgotSendsOnlyToMembersOfTheSchool(t *testing.T) {
	e := newEnv(t)
	// Ann is a member of A only.
	if res := e.browser().forgot(hostB, annEmail); res.status != http.StatusOK {
		t.Fatalf("POST at B: %d", res.status)
	}
	if msgs := e.post.deliver(); len(msgs) != 0 {
		t.Errorf("a non-member was sent %+v", msgs)
	}
}

func TestFormsRefuseMissingCSRF(t *testing.T) {
	e := newEnv(t)
	_, invitation := e.invite(hostA, "nia@example.com", "Nia")
	reset := e.resetLink(hostA, annEmail)
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
				f.Set(consent.CSRFField, csrf)
			}
			if res := b.post("http://"+hostA+tc.path, f); res.status != http.StatusForbidden {
				t.Errorf("POST %s with csrf %q: %d", tc.path, csrf, res.status)
			}
		}
		// A browser without the form's cookie, with a token from another browser's form.
		stranger := e.browser()
		f := url.Values{}
		for k, v := range tc.form {
			f[k] = v
		}
		f.Set(consent.CSRFField, csrfFrom(t, b.get("http://"+hostA+account.ForgotPath).body))
		if res := stranger.post("http://"+hostA+tc.path, f); res.status != http.StatusForbidden {
			t.Errorf("POST %s without the cookie: %d", tc.path, res.status)
		}
	}
	if n := len(e.outbox.Kinds()) - before; n != 0 {
		t.Errorf("%d outbox entries from refused forms", n)
	}
	if password.Verify(annPassword, e.member(annEmail).PasswordHash) != nil || e.member("nia@example.com").PasswordHash != "" {
		t.Error("a refused form changed a password")
	}
	// Both links are still live.
	if res := b.setPassword(invitation, newPassword, nil); res.status != http.StatusSeeOther {
		t.Errorf("invitation after refused forms: %d", res.status)
	}
	if res := b.setPassword(reset, newPassword, nil); res.status != http.StatusSeeOther {
		t.Errorf("reset after refused forms: %d", res.status)
	}
}

func TestJunkTokensNeverReachTheStore(t *testing.T) {
	e := newEnv(t)
	b := e.browser()
	form := b.get("http://" + hostA + account.ForgotPath)
	csrf := csrfFrom(t, form.body)
	junk := []string{"", "x", strings.Repeat("A", 21) + "\r" + strings.Repeat("A", 21), strings.Repeat("A", 42), strings.Repeat("A", 44), strings.Repeat("!", 43), "' OR 1=1 --", strings.Repeat("a", 5000)}
	for _, tok := range junk {
		for _, path := range []string{account.ResetPath, account.InvitationPath} {
			if res := b.get("http://" + hostA + path + "?token=" + url.QueryEscape(tok)); res.status != http.StatusGone {
				t.Errorf("GET %s?token=%q: %d", path, tok, res.status)
			}
			res := b.post("http://"+hostA+path, url.Values{"token": {tok}, "password": {newPassword}, "password2": {newPassword}, consent.CSRFField: {csrf}})
			if res.status != http.StatusGone {
				t.Errorf("POST %s token=%q: %d", path, tok, res.status)
			}
		}
	}
	if g, c := e.store.getLinks.Load(), e.store.consumeLinks.Load(); g != 0 || c != 0 {
		t.Errorf("junk reached the store: %d GetLink, %d ConsumeLink", g, c)
	}
	// A well-formed token that was never issued is looked up, and refused the same way.
	if res := b.get("http://" + hostA + account.ResetPath + "?token=" + randomToken()); res.status != http.StatusGone {
		t.Errorf("unknown token: %d", res.status)
	}
}

func TestInviteRefusesBadInput(t *testing.T) {
	e := newEnv(t)
	for _, inv := range []account.Invitation{
		{Email: ""}, {Email: "not-an-address"}, {Email: strings.Repeat("a", 250) + "@x.example"},
		{Email: "ok@example.com", Roles: []storage.Role{"emperor"}},
	} {
		if _, err := e.svc.Invite(e.ctx(hostA), inv); err == nil {
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
	for _, backend := range storetest.Backends() {
		t.Run(backend, func(t *testing.T) {
			e := newEnvOn(t, backend)
			link := e.resetLink(hostA, annEmail)
			const n = 4
			type attempt struct {
				b    *browser
				form url.Values
			}
			var attempts []attempt
			for range n {
				b := e.browser()
				token, csrf := b.openForm(link)
				attempts = append(attempts, attempt{b, url.Values{"token": {token}, "password": {newPassword}, "password2": {newPassword}, consent.CSRFField: {csrf}}})
			}
			statuses := make(chan int, n)
			for _, a := range attempts {
				go func() {
					res, err := a.b.try(http.MethodPost, "http://"+hostA+account.ResetPath, a.form)
					if err != nil {
						t.Error(err)
					}
					statuses <- res.status
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
}

func TestForgotWithoutAnAddressShowsTheForm(t *testing.T) {
	e := newEnv(t)
	res := e.browser().forgot(hostA, "  ")
	if res.status != http.StatusOK || !strings.Contains(res.body, account.MsgEmailMissing) || !strings.Contains(res.body, `name="email"`) {
		t.Errorf("empty address: %d\n%s", res.status, res.body)
	}
	if n := len(e.outbox.Kinds()); n != 0 {
		t.Errorf("%d outbox entries", n)
	}
}

func TestInvitationAndItsMailCommitTogether(t *testing.T) {
	e := newEnv(t)
	e.outbox.fail.Store(true)
	if _, err := e.svc.Invite(e.ctx(hostA), account.Invitation{Email: "nia@example.com", Name: "Nia"}); err == nil {
		t.Fatal("Invite succeeded without its e-mail")
	}
	if _, err := e.svc.Invite(e.ctx(hostB), account.Invitation{Email: annEmail, Roles: []storage.Role{storage.RoleLecturer}}); err == nil {
		t.Fatal("Invite succeeded without its e-mail")
	}
	if _, err := e.gs.GetMemberByEmail(t.Context(), "nia@example.com"); err == nil {
		t.Error("the identity of a failed invitation was kept")
	}
	if roles, err := e.gs.GetRoles(e.ctx(hostB), e.ann.ID); err != nil || len(roles) != 0 {
		t.Errorf("roles of a failed invitation: %v, %v", roles, err)
	}
	if e.store.createLinks.Load() == 0 {
		t.Error("the failure came before the link: the test proves nothing")
	}
	e.outbox.fail.Store(false)
	if msgs := e.post.deliver(); len(msgs) != 0 {
		t.Errorf("sent %+v", msgs)
	}
}
