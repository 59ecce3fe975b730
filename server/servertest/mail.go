package servertest

import (
	"testing"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/mail"
	"github.com/proctorhq/proctor/mail/mailbox"
	"github.com/proctorhq/proctor/server/servertest/schools"
)

// PostOffice sends a store's outbox over SMTP to a mailbox of the test, as `proctor serve`
// sends it, and hands the test what arrived.
type PostOffice struct {
	Box    *mailbox.Mailbox
	Worker *mail.Worker
	t      testing.TB
	seen   int
}

// NewPostOffice starts a mailbox, closed when the test ends, and a worker with options o that
// sends st's outbox to it from noreply@school.test ("School").
func NewPostOffice(t testing.TB, st mail.Store, secret config.Secret, o mail.Options) *PostOffice {
	t.Helper()
	box, settings := schools.Mailbox(t, mailbox.Options{})
	sender, err := mail.NewSMTPSender(settings, func(int64) (string, string) { return "noreply@school.test", "School" })
	if err != nil {
		t.Fatal(err)
	}
	w, err := mail.NewWorker(st, sender, secret, o)
	if err != nil {
		t.Fatal(err)
	}
	return &PostOffice{Box: box, Worker: w, t: t}
}

// Deliver runs the worker until nothing is due (an expanded request queues a message the next
// round sends) and returns the messages the mailbox received since the last Deliver.
func (p *PostOffice) Deliver() []mailbox.Message {
	p.t.Helper()
	for {
		n, err := p.Worker.RunOnce(p.t.Context())
		if err != nil {
			p.t.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	msgs := p.Box.Messages()
	out := msgs[p.seen:]
	p.seen = len(msgs)
	return out
}
