package account_test

import (
	"strings"
	"testing"
	"time"

	"github.com/proctorhq/proctor/account"
	"github.com/proctorhq/proctor/mail"
)

// An invitation made while the SMTP server is down is not lost: its message waits in the
// outbox, the worker retries, and once the server is back the message arrives, once.
func TestInvitationSurvivesAnSMTPOutage(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		post := e.postOffice(mail.Options{MaxAttempts: 5, Backoff: time.Minute, MaxBackoff: time.Minute})
		box := post.Box
		runUntilIdle := func() { post.Deliver() }

		box.Stop()
		res, err := e.svc.Invite(e.ctx(e.a), account.Invitation{Email: "olu@example.com", Name: "Olu"})
		if err != nil {
			t.Fatalf("an invitation while the SMTP server is down: %v", err)
		}
		runUntilIdle() // the attempt fails and is put back, due in a minute
		if got := len(box.Messages()); got != 0 {
			t.Fatalf("%d messages arrived while the server was down", got)
		}

		if err := box.Resume(); err != nil {
			t.Fatal(err)
		}
		runUntilIdle() // not due yet: nothing is sent before the backoff
		e.clock.Advance(2 * time.Minute)
		runUntilIdle()
		e.clock.Advance(time.Hour)
		runUntilIdle() // and nothing more later

		var to []string
		for _, m := range box.Messages() {
			to = append(to, strings.Join(m.To, ","))
		}
		if len(to) != 1 || to[0] != "olu@example.com" {
			t.Fatalf("messages to %v, want exactly one to olu@example.com", to)
		}
		msgs := box.Messages()
		if len(msgs) != 1 || !strings.HasPrefix(msgs[0].Subject, "You are invited to") || msgs[0].ParseError != "" {
			t.Fatalf("received %+v", msgs)
		}
		// The link it carries works.
		link := e.linkIn(msgs[0])
		b := e.browser()
		if done := b.setPassword(link, newPassword, nil); done.Status != 303 || !b.SignedIn(e.a) {
			t.Fatalf("POST /invitation after the outage: %d\n%s", done.Status, done.Body)
		}
		if m := e.member("olu@example.com"); m.ID != res.Member.ID {
			t.Errorf("member %d, invited %d", m.ID, res.Member.ID)
		}
	})
}
