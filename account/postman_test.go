package account_test

import (
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/mail"
	"github.com/proctorhq/proctor/mail/mailbox"
)

// sent is a message as the SMTP server received it.
type sent struct {
	To, Subject, Text, HTML string
}

// postman is the real mail worker, with the account service's expanders, sending over SMTP to
// an in-process mailbox.
type postman struct {
	e      *env
	box    *mailbox.Mailbox
	worker *mail.Worker
	seen   int
}

func newPostman(e *env) *postman {
	t := e.t
	box, err := mailbox.Start(mailbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = box.Close() })
	host, port, _ := net.SplitHostPort(box.Addr())
	p, _ := strconv.Atoi(port)
	sender, err := mail.NewSMTPSender(
		mail.SMTPSettings{Host: host, Port: p, TLS: config.MailTLSNone, Timeout: 30 * time.Second},
		func(schoolID int64) (string, string) {
			return "noreply@school.test", "School " + strconv.FormatInt(schoolID, 10)
		},
	)
	if err != nil {
		t.Fatal(err)
	}
	worker, err := mail.NewWorker(e.gs, sender, testSecret, mail.Options{
		Expanders: e.svc.Expanders(), Now: e.clock.Now, Logger: e.logger, MaxAttempts: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	return &postman{e: e, box: box, worker: worker}
}

// deliver runs the worker until nothing is due (an expanded request queues a message the next
// claim takes) and returns the messages the mailbox received meanwhile.
func (p *postman) deliver() []sent {
	t := p.e.t
	t.Helper()
	for {
		n, err := p.worker.RunOnce(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	msgs := p.box.Messages()
	var out []sent
	for _, m := range msgs[p.seen:] {
		if m.ParseError != "" {
			t.Fatalf("message %d: %s", m.Seq, m.ParseError)
		}
		out = append(out, sent{To: strings.Join(m.To, ","), Subject: m.Subject, Text: m.Text, HTML: m.HTML})
	}
	p.seen = len(msgs)
	return out
}
