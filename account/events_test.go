package account_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/account"
	"github.com/proctorhq/proctor/audit"
)

// A reset asked for on the form is recorded by the worker against the member, without who
// asked; one withheld by the account's budget is recorded as throttled; an invitation is
// recorded with its roles. The account page lists the member's events in its own words.
func TestResetAndInvitationEvents(t *testing.T) {
	e := newEnv(t)
	for range account.DefaultResetAccountLimit.Max + 1 {
		if res := e.browser().forgot(e.a, annEmail); res.Status != http.StatusOK {
			t.Fatalf("forgot: %d", res.Status)
		}
	}
	e.deliver()
	events, err := e.gs.ListSecurityEvents(e.ctx(e.a), audit.Filter{Kinds: []audit.Kind{audit.KindPasswordResetRequested}, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != account.DefaultResetAccountLimit.Max+1 || events[0].Result != audit.ResultThrottled {
		t.Fatalf("reset requests: %+v", events)
	}
	for _, ev := range events[1:] {
		if ev.Result != audit.ResultSuccess || ev.Actor != audit.ActorMember || ev.ActorID != 0 || ev.SubjectID != e.ann.ID {
			t.Errorf("reset request %+v", ev)
		}
	}
	// A stranger's address sends nothing and records nothing.
	e.browser().forgot(e.a, "stranger@example.com")
	e.deliver()
	if again, _ := e.gs.ListSecurityEvents(e.ctx(e.a), audit.Filter{Kinds: []audit.Kind{audit.KindPasswordResetRequested}, Limit: 100}); len(again) != len(events) {
		t.Errorf("a stranger's reset request was recorded: %d events", len(again))
	}

	res, _ := e.invite(e.a, "nia@example.com", "Nia")
	inv, err := e.gs.ListSecurityEvents(e.ctx(e.a), audit.Filter{MemberID: res.Member.ID, Limit: 10})
	if err != nil || len(inv) != 1 || inv[0].Kind != audit.KindInvitationSent || inv[0].Actor != audit.ActorSystem || inv[0].Detail != "student" {
		t.Errorf("invitation events %+v, %v", inv, err)
	}

	b := e.browser()
	b.SignIn(e.a, annEmail)
	page := b.Get(e.url(e.a, account.AccountPath))
	for _, words := range []string{"Signed in", "Password reset link requested"} {
		if !strings.Contains(page.Body, words) {
			t.Errorf("the account page does not say %q", words)
		}
	}
}
