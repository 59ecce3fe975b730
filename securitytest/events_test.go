package securitytest

import (
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/account"
	"github.com/proctorhq/proctor/admin"
	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/scope"
	"github.com/proctorhq/proctor/server/servertest"
	"github.com/proctorhq/proctor/server/servertest/schools"
)

var (
	clientSecretPattern = regexp.MustCompile(`id="client-secret"[^>]*>([^<]+)<`)
	clientIDPattern     = regexp.MustCompile(`id="client-id">([^<]+)<`)
)

// step is one expected event of the flow, in order.
type step struct {
	kind   audit.Kind
	result audit.Result
	actor  audit.Actor
	// actorID and subjectID are the members the event must name (0: none).
	actorID, subjectID int64
	client             bool // names the flow's client and its scopes
	detail             string
}

// TestSecurityEventLogOfAFlow runs what members and operators do at a school through the
// running server (an operator creates a confidential application; a member fails to sign in,
// signs in, denies and approves it, has a refresh token replayed, removes the application,
// resets a forgotten password through the e-mail link; someone is throttled), then reads every
// event of the school: they come in the expected order with the expected fields, and not one
// field of one event holds a password, a typed address, a token, a code, a link token, a
// cookie or the client secret.
func TestSecurityEventLogOfAFlow(t *testing.T) {
	schools.Backends(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend)
		a := e.A
		office := newPostOffice(t, e)
		var secrets []string
		keep := func(what string, s ...string) {
			for _, v := range s {
				if v == "" {
					t.Fatalf("no %s to look for", what)
				}
				secrets = append(secrets, v)
			}
		}
		keep("password", servertest.Password)

		// An owner creates a confidential application on the operator pages.
		owner := e.Browser()
		owner.SignIn(a, a.Owner.Email)
		keep("session cookie", owner.Cookie(a, servertest.SessionCookie(a)))
		form, ok := owner.Get(a.URL(admin.NewAppPath)).FormWith("name")
		if !ok {
			t.Fatal("no creation form")
		}
		form.Values.Set("name", "Grade Sync")
		form.Values.Set("redirect_uris", "http://127.0.0.1/grades/callback")
		form.Values.Add("scope", scope.Profile)
		form.Values.Set("confidential", "yes")
		created := owner.Submit(form, "")
		sm, im := clientSecretPattern.FindStringSubmatch(created.Body), clientIDPattern.FindStringSubmatch(created.Body)
		if created.Status != http.StatusOK || sm == nil || im == nil {
			t.Fatalf("create application: %d\n%s", created.Status, created.Body)
		}
		app := servertest.Client{ID: im[1], RedirectURI: "http://127.0.0.1/grades/callback", Scopes: []string{scope.OpenID, scope.Profile}, Secret: sm[1]}
		keep("client secret", app.Secret)

		// The member: a wrong password, an address nobody has, then the right password.
		student := a.Student
		b := e.Browser()
		const wrong, typed = "not the password at all", "nobody-typed@example.com"
		keep("typed input", wrong, typed, student.Email)
		if r := b.TrySignIn(a, student.Email, wrong); r.Status != http.StatusOK {
			t.Fatalf("wrong password: %d", r.Status)
		}
		if r := b.TrySignIn(a, typed, wrong); r.Status != http.StatusOK {
			t.Fatalf("unknown address: %d", r.Status)
		}
		b.SignIn(a, student.Email)
		keep("session cookie", b.Cookie(a, servertest.SessionCookie(a)))

		// Denied, then approved, exchanged, refreshed; the new access token is used, which
		// retires the old pair, and the old refresh token replayed: the grant is revoked.
		if _, r := b.Consent(servertest.AuthorizeURL(a, app, servertest.NewPKCE(), app.Scopes...), "deny"); r.Status != http.StatusSeeOther {
			t.Fatalf("deny: %d", r.Status)
		}
		p := servertest.NewPKCE()
		code := b.Approve(servertest.AuthorizeURL(a, app, p, app.Scopes...))
		_, t1 := e.Exchange(a, app, code, p)
		_, t2 := e.Refresh(a, app, t1.RefreshToken)
		if e.Userinfo(a, t2.AccessToken) != http.StatusOK {
			t.Fatal("the refreshed access token does not work")
		}
		if r, _ := e.Refresh(a, app, t1.RefreshToken); r.Status == http.StatusOK {
			t.Fatal("a replayed refresh token was honoured")
		}
		keep("code", code, p.Verifier)
		keep("tokens", t1.AccessToken, t1.RefreshToken, t1.IDToken, t2.AccessToken, t2.RefreshToken)

		// Approved again, and removed from the account page.
		p = servertest.NewPKCE()
		code = b.Approve(servertest.AuthorizeURL(a, app, p, app.Scopes...))
		_, t3 := e.Exchange(a, app, code, p)
		keep("code", code, p.Verifier)
		keep("tokens", t3.AccessToken, t3.RefreshToken)
		page := b.Get(a.URL(account.AccountPath))
		var remove servertest.Form
		for _, f := range page.Forms() {
			if f.Values.Get("client_id") == app.ID {
				remove = f
			}
		}
		if r := b.Submit(remove, ""); r.Status != http.StatusSeeOther {
			t.Fatalf("remove application: %d", r.Status)
		}

		// A forgotten password, reset through the e-mail link.
		forgot, _ := b.Get(a.URL(account.ForgotPath)).FormWith("email")
		forgot.Values.Set("email", student.Email)
		if r := b.Submit(forgot, ""); r.Status >= 400 {
			t.Fatalf("forgot: %d", r.Status)
		}
		link := linkTo(t, office.Deliver(), student.Email)
		keep("link token", link.Query().Get("token"))
		resetPage := b.Get(link.String())
		reset, ok := resetPage.FormWith("password2")
		if !ok {
			t.Fatalf("reset page: %d\n%s", resetPage.Status, resetPage.Body)
		}
		const newPassword = "a brand new passphrase 42"
		keep("new password", newPassword)
		reset.Values.Set("password", newPassword)
		reset.Values.Set("password2", newPassword)
		if r := b.Submit(reset, ""); r.Status >= 400 {
			t.Fatalf("reset: %d\n%s", r.Status, r.Body)
		}
		fresh := e.Browser()
		if r := fresh.TrySignIn(a, student.Email, newPassword); r.Status != http.StatusSeeOther {
			t.Fatalf("sign in with the new password: %d", r.Status)
		}

		// Someone guesses the owner's password from a browser the account does not know until
		// the account's budget is spent.
		guesser := e.Browser()
		keep("typed input", a.Owner.Email)
		for i := range login.DefaultAccountLimit.Max {
			if r := guesser.TrySignIn(a, a.Owner.Email, fmt.Sprintf("guess %d", i)); r.Status != http.StatusOK {
				t.Fatalf("guess %d: %d", i, r.Status)
			}
		}
		if r := guesser.TrySignIn(a, a.Owner.Email, "guess again"); r.Status != http.StatusTooManyRequests {
			t.Fatalf("guess past the budget: %d", r.Status)
		}

		member := func(kind audit.Kind, res audit.Result, id int64, client bool) step {
			return step{kind: kind, result: res, actor: audit.ActorMember, actorID: id, subjectID: id, client: client}
		}
		want := []step{
			member(audit.KindSignIn, audit.ResultSuccess, a.Owner.ID, false),
			{kind: audit.KindClientCreated, result: audit.ResultSuccess, actor: audit.ActorOperator, actorID: a.Owner.ID, client: true, detail: "member, confidential"},
			member(audit.KindSignIn, audit.ResultFailure, student.ID, false),
			member(audit.KindSignIn, audit.ResultFailure, 0, false),
			member(audit.KindSignIn, audit.ResultSuccess, student.ID, false),
			member(audit.KindConsentDenied, audit.ResultSuccess, student.ID, true),
			member(audit.KindConsentApproved, audit.ResultSuccess, student.ID, true),
			{kind: audit.KindGrantRevoked, result: audit.ResultSuccess, actor: audit.ActorSystem, subjectID: student.ID, client: true, detail: "reuse_detected"},
			member(audit.KindConsentApproved, audit.ResultSuccess, student.ID, true),
			{kind: audit.KindGrantRevoked, result: audit.ResultSuccess, actor: audit.ActorMember, actorID: student.ID, subjectID: student.ID, client: true, detail: "Grade Sync"},
			{kind: audit.KindPasswordResetRequested, result: audit.ResultSuccess, actor: audit.ActorMember, subjectID: student.ID},
			member(audit.KindPasswordResetCompleted, audit.ResultSuccess, student.ID, false),
			member(audit.KindSignIn, audit.ResultSuccess, student.ID, false),
		}
		for range login.DefaultAccountLimit.Max {
			want = append(want, member(audit.KindSignIn, audit.ResultFailure, a.Owner.ID, false))
		}
		want = append(want, member(audit.KindSignIn, audit.ResultThrottled, 0, false))

		events, err := e.Store.ListSecurityEvents(e.Ctx(a), audit.Filter{Limit: audit.MaxPage})
		if err != nil {
			t.Fatal(err)
		}
		slices.Reverse(events) // oldest first, as they happened
		var got []string
		for _, ev := range events {
			got = append(got, string(ev.Kind)+"/"+string(ev.Result))
		}
		if len(events) != len(want) {
			t.Fatalf("%d events, want %d:\n%s", len(events), len(want), strings.Join(got, "\n"))
		}
		for i, w := range want {
			ev := events[i]
			ok := ev.Kind == w.kind && ev.Result == w.result && ev.Actor == w.actor && ev.ActorID == w.actorID && ev.SubjectID == w.subjectID &&
				(w.detail == "" || ev.Detail == w.detail)
			if w.client {
				ok = ok && ev.ClientID == app.ID
				if w.kind != audit.KindGrantRevoked || w.actor == audit.ActorSystem {
					ok = ok && slices.Equal(ev.Scopes, app.Scopes)
				}
			}
			// Every event but the mail worker's comes from a request: its id and address.
			if w.kind != audit.KindPasswordResetRequested {
				ok = ok && ev.RequestID != "" && ev.ClientAddr == "127.0.0.1"
			}
			if !ok {
				t.Errorf("event %d: %+v\nwant %+v", i, ev, w)
			}
		}

		// No secret in any field of any event.
		for _, ev := range events {
			all := fmt.Sprintf("%#v", ev)
			for _, s := range secrets {
				if strings.Contains(all, s) {
					t.Errorf("event %d (%s) holds %q", ev.ID, ev.Kind, s)
				}
			}
		}
		// Nothing of school A's flow is in school B's log.
		if other, err := e.Store.ListSecurityEvents(e.Ctx(e.B), audit.Filter{Limit: audit.MaxPage}); err != nil || len(other) != 0 {
			t.Errorf("school B's log: %d events, %v", len(other), err)
		}

		// The server counted what it recorded (the mail worker here is the test's own, which
		// counts nothing).
		resp, err := http.Get(e.InternalURL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		metrics, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		for _, line := range []string{
			`proctor_security_events_total{kind="sign_in",result="failure",school="1"} 7`,
			`proctor_security_events_total{kind="sign_in",result="throttled",school="1"} 1`,
			`proctor_security_events_total{kind="sign_in",result="success",school="1"} 3`,
			`proctor_security_events_total{kind="grant_revoked",result="success",school="1"} 2`,
			`proctor_security_events_total{kind="consent_approved",result="success",school="1"} 2`,
		} {
			if !strings.Contains(string(metrics), line) {
				t.Errorf("/metrics lacks %s", line)
			}
		}
	})
}
