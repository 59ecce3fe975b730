package mail_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/mail"
	"github.com/proctorhq/proctor/mail/mailbox"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage/gormstore"
	"github.com/proctorhq/proctor/storage/gormstore/storetest"
)

var secret = config.Secret(bytes.Repeat([]byte{7}, 32))

// schools' From addresses, as the server resolves them from the school files.
func fromOf(id int64) (string, string) {
	return fmt.Sprintf("noreply@school%d.example.test", id), fmt.Sprintf("School %d", id)
}

// rig is one test's mail system: a real store, a real SMTP server, the queue and a worker.
type rig struct {
	store  *gormstore.Store
	box    *mailbox.Mailbox
	queue  *mail.Queue
	worker *mail.Worker
	clock  *schools.Clock
	logs   *schools.LogBuffer
}

type rigOptions struct {
	box       mailbox.Options
	settings  func(*mail.SMTPSettings)
	expanders map[string]mail.Expander
	poll      time.Duration
}

func newRig(t *testing.T, backend string, o rigOptions) *rig {
	t.Helper()
	r := &rig{store: storetest.Open(t, backend), clock: schools.NewClock(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))}
	logs, logger := schools.NewLog()
	r.logs = logs
	box, settings := schools.Mailbox(t, o.box)
	r.box = box
	if o.settings != nil {
		o.settings(&settings)
	}
	sender, err := mail.NewSMTPSender(settings, fromOf)
	if err != nil {
		t.Fatalf("NewSMTPSender: %v", err)
	}
	r.queue, err = mail.NewQueue(r.store, secret, r.clock.Now)
	if err != nil {
		t.Fatalf("NewQueue: %v", err)
	}
	r.worker, err = mail.NewWorker(r.store, sender, secret, mail.Options{
		Expanders: o.expanders, Now: r.clock.Now, Backoff: time.Minute, MaxBackoff: 10 * time.Minute,
		MaxAttempts: 3, Lease: 2 * time.Minute, Poll: o.poll,
		Logger: logger,
	})
	if err != nil {
		t.Fatalf("NewWorker: %v", err)
	}
	return r
}

func (r *rig) runOnce(t *testing.T, want int) {
	t.Helper()
	n, err := r.worker.RunOnce(t.Context())
	if err != nil {
		t.Fatalf("RunOnce: %v", err)
	}
	if n != want {
		t.Fatalf("RunOnce claimed %d entries, want %d", n, want)
	}
}

// onlyEntry returns the outbox's only entry of the test (ids start at 1 in a fresh database).
func (r *rig) entry(t *testing.T, id int64) mail.Entry {
	t.Helper()
	e, err := r.store.MailEntry(t.Context(), id)
	if err != nil {
		t.Fatalf("MailEntry(%d): %v", id, err)
	}
	return e
}

func waitCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func message(school int64, to, link string) mail.Message {
	return mail.Message{SchoolID: school, Kind: "invitation", To: to, ToName: "Ada Lovelace", Subject: "You are invited",
		Text: "Join us: " + link + "\n", HTML: `<p>Join us: <a href="` + link + `">accept</a></p>`}
}

// TestDelivery: each message arrives once, with both parts, its school's From and a Message-ID
// derived from its outbox entry; the payload is erased once sent.
func TestDelivery(t *testing.T) {
	schools.Backends(t, func(t *testing.T, backend string) {
		t.Parallel()
		r := newRig(t, backend, rigOptions{})
		must(t, r.queue.Send(t.Context(), message(1, "ada@example.test", "https://a.example.test/invite?token=secret-one")))
		must(t, r.queue.Send(t.Context(), message(2, "bob@example.test", "https://b.example.test/invite?token=secret-two")))
		r.runOnce(t, 2)
		r.runOnce(t, 0)

		msgs := r.box.Messages()
		if len(msgs) != 2 {
			t.Fatalf("%d messages arrived, want 2", len(msgs))
		}
		for i, m := range msgs {
			id := int64(i + 1)
			fromAddr, fromName := fromOf(id)
			if m.From != fromAddr || m.FromName != fromName || m.EnvelopeFrom != fromAddr {
				t.Errorf("message %d From %q <%s> (envelope %s), want %q <%s>", id, m.FromName, m.From, m.EnvelopeFrom, fromName, fromAddr)
			}
			if want := mail.MessageID(id, fromAddr); m.MessageID != want {
				t.Errorf("message %d Message-ID %q, want %q", id, m.MessageID, want)
			}
			if m.ContentType != "multipart/alternative" || !strings.Contains(m.Text, "token=secret-") ||
				!strings.Contains(m.HTML, `<a href="https://`) || m.Subject != "You are invited" || m.Date == "" {
				t.Errorf("message %d: %+v", id, m)
			}
			e := r.entry(t, id)
			if e.State != mail.StateSent || len(e.Payload) != 0 || e.Attempts != 1 || !e.SentAt.Equal(r.clock.Now()) {
				t.Errorf("entry %d after delivery: %+v", id, e)
			}
		}
		if msgs[0].To[0] != "ada@example.test" || msgs[1].To[0] != "bob@example.test" {
			t.Errorf("recipients: %v, %v", msgs[0].To, msgs[1].To)
		}
		if logs := r.logs.String(); strings.Contains(logs, "secret-one") || strings.Contains(logs, "ada@example.test") {
			t.Errorf("the log names a recipient or a link: %s", logs)
		}
	})
}

// TestOutage: the SMTP server is down; the worker retries with backoff; once it is back on the
// same address the message arrives exactly once.
func TestOutage(t *testing.T) {
	schools.Backends(t, func(t *testing.T, backend string) {
		t.Parallel()
		r := newRig(t, backend, rigOptions{})
		r.box.Stop()
		must(t, r.queue.Send(t.Context(), message(1, "ada@example.test", "https://a.example.test/invite?token=outage")))
		r.runOnce(t, 1)
		e := r.entry(t, 1)
		if e.State != mail.StatePending || e.Attempts != 1 || e.LastError == "" || len(e.Payload) == 0 {
			t.Fatalf("entry after a failed attempt: %+v", e)
		}
		if wait := e.NextAttemptAt.Sub(r.clock.Now()); wait < time.Minute || wait > time.Minute+12*time.Second {
			t.Errorf("first retry after %s, want a minute plus up to a fifth", wait)
		}
		// Not due yet: nothing is claimed.
		r.clock.Advance(30 * time.Second)
		r.runOnce(t, 0)

		must(t, r.box.Resume())
		r.clock.Advance(time.Minute)
		r.runOnce(t, 1)
		r.clock.Advance(time.Hour)
		r.runOnce(t, 0)
		msgs := r.box.Messages()
		if len(msgs) != 1 || !strings.Contains(msgs[0].Text, "token=outage") {
			t.Fatalf("after the outage: %d messages %+v", len(msgs), msgs)
		}
		if e := r.entry(t, 1); e.State != mail.StateSent || e.Attempts != 2 {
			t.Errorf("entry after delivery: %+v", e)
		}
		if logs := r.logs.String(); !strings.Contains(logs, "will retry") || strings.Contains(logs, "token=outage") || strings.Contains(logs, "ada@example.test") {
			t.Errorf("log: %s", logs)
		}
	})
}

// TestGivesUp: after MaxAttempts temporary failures the entry fails, its payload erased.
func TestGivesUp(t *testing.T) {
	r := newRig(t, gormstore.DriverSQLite, rigOptions{})
	r.box.Stop()
	must(t, r.queue.Send(t.Context(), message(1, "ada@example.test", "https://x.test/")))
	for range 3 {
		r.runOnce(t, 1)
		r.clock.Advance(time.Hour)
	}
	if e := r.entry(t, 1); e.State != mail.StateFailed || e.Attempts != 3 || len(e.Payload) != 0 || e.LastError == "" {
		t.Errorf("entry after 3 failed attempts: %+v", e)
	}
	r.runOnce(t, 0)
}

// TestLeaseExpiry: a worker that claimed an entry and died leaves it to another once the lease
// ends; the message arrives once.
func TestLeaseExpiry(t *testing.T) {
	schools.Backends(t, func(t *testing.T, backend string) {
		t.Parallel()
		r := newRig(t, backend, rigOptions{})
		must(t, r.queue.Send(t.Context(), message(1, "ada@example.test", "https://x.test/")))
		// The worker that died: it claimed and never came back.
		claimed, err := r.store.ClaimMail(t.Context(), r.clock.Now(), 2*time.Minute, 10)
		if err != nil || len(claimed) != 1 {
			t.Fatalf("claim: %v, %v", claimed, err)
		}
		r.clock.Advance(time.Minute)
		r.runOnce(t, 0)
		r.clock.Advance(time.Minute)
		r.runOnce(t, 1)
		if msgs := r.box.Messages(); len(msgs) != 1 {
			t.Fatalf("%d messages, want 1", len(msgs))
		}
		if e := r.entry(t, 1); e.State != mail.StateSent || e.Attempts != 2 {
			t.Errorf("entry: %+v", e)
		}
	})
}

// TestPermanentRejection: a 5xx answer fails the entry at once, without retry.
func TestPermanentRejection(t *testing.T) {
	schools.Backends(t, func(t *testing.T, backend string) {
		t.Parallel()
		r := newRig(t, backend, rigOptions{box: mailbox.Options{Reject: func(rcpt string) bool { return rcpt == "gone@example.test" }}})
		must(t, r.queue.Send(t.Context(), message(1, "gone@example.test", "https://x.test/?token=rejected")))
		r.runOnce(t, 1)
		e := r.entry(t, 1)
		if e.State != mail.StateFailed || e.Attempts != 1 || len(e.Payload) != 0 || !strings.Contains(e.LastError, "550") {
			t.Errorf("rejected entry: %+v", e)
		}
		if strings.Contains(e.LastError, "gone@example.test") || strings.Contains(r.logs.String(), "gone@example.test") {
			t.Errorf("the error names the recipient: %q", e.LastError)
		}
		r.clock.Advance(24 * time.Hour)
		r.runOnce(t, 0)
		if n := len(r.box.Messages()); n != 0 {
			t.Errorf("%d messages arrived", n)
		}
	})
}

// TestUnopenablePayload: a payload sealed under another secret (or altered) fails at once.
func TestUnopenablePayload(t *testing.T) {
	r := newRig(t, gormstore.DriverSQLite, rigOptions{})
	other := config.Secret(bytes.Repeat([]byte{9}, 32))
	q, err := mail.NewQueue(r.store, other, r.clock.Now)
	must(t, err)
	must(t, q.Send(t.Context(), message(1, "ada@example.test", "https://x.test/")))
	r.runOnce(t, 1)
	if e := r.entry(t, 1); e.State != mail.StateFailed || len(e.Payload) != 0 {
		t.Errorf("entry: %+v", e)
	}
}

// TestExpander: a request entry's expander runs in a transaction with the request's mark; what
// it sends commits with it. A failing expander leaves the request due and sends nothing.
func TestExpander(t *testing.T) {
	schools.Backends(t, func(t *testing.T, backend string) {
		t.Parallel()
		var r *rig
		fail := true
		expanders := map[string]mail.Expander{
			"reset_request": func(ctx context.Context, school int64, payload []byte) error {
				if err := r.queue.Send(ctx, message(school, string(payload), "https://x.test/reset?token=expanded")); err != nil {
					return err
				}
				if fail {
					return errors.New("member lookup failed")
				}
				return nil
			},
		}
		r = newRig(t, backend, rigOptions{expanders: expanders})
		must(t, r.queue.Request(t.Context(), 2, "reset_request", []byte("ada@example.test")))

		r.runOnce(t, 1)
		req := r.entry(t, 1)
		if req.State != mail.StatePending || req.Attempts != 1 || !strings.Contains(req.LastError, "member lookup failed") {
			t.Fatalf("request after a failing expander: %+v", req)
		}
		if _, err := r.store.MailEntry(t.Context(), 2); err == nil {
			t.Error("the failing expander's message was kept")
		}
		r.runOnce(t, 0)

		fail = false
		r.clock.Advance(time.Hour)
		r.runOnce(t, 1)
		if req := r.entry(t, 1); req.State != mail.StateSent || len(req.Payload) != 0 {
			t.Errorf("request after the expander ran: %+v", req)
		}
		r.runOnce(t, 1)
		msgs := r.box.Messages()
		if len(msgs) != 1 || msgs[0].To[0] != "ada@example.test" || !strings.Contains(msgs[0].Text, "token=expanded") {
			t.Fatalf("messages: %+v", msgs)
		}
		if addr, _ := fromOf(2); msgs[0].From != addr {
			t.Errorf("From %s, want %s", msgs[0].From, addr)
		}
	})
}

// TestRunWakes: Run sends a message as soon as the queue wakes it, without waiting for a poll,
// and returns when its context ends.
func TestRunWakes(t *testing.T) {
	r := newRig(t, gormstore.DriverSQLite, rigOptions{poll: time.Hour})
	r.queue.OnEnqueue(r.worker.Wake)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.worker.Run(ctx)
	}()
	// Whatever the first pass found, the message enqueued now wakes the worker again.
	must(t, r.queue.Send(t.Context(), message(1, "ada@example.test", "https://x.test/?token=woken")))
	if _, err := r.box.Wait(waitCtx(t), func(m mailbox.Message) bool { return strings.Contains(m.Text, "token=woken") }); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case <-done:
	case <-waitCtx(t).Done():
		t.Fatal("Run did not return after its context ended")
	}
}

// TestTLSModes: STARTTLS and implicit TLS against the mailbox with a test certificate; a server
// without STARTTLS gets nothing in starttls mode.
func TestTLSModes(t *testing.T) {
	ca := schools.NewCA(t, "127.0.0.1", "localhost")
	tlsConfig := &tls.Config{Certificates: []tls.Certificate{ca.Server}, MinVersion: tls.VersionTLS12}
	for _, tc := range []struct {
		name    string
		box     mailbox.Options
		mode    string
		arrives bool
	}{
		{"starttls", mailbox.Options{TLSConfig: tlsConfig}, config.MailTLSStartTLS, true},
		{"implicit tls", mailbox.Options{TLSConfig: tlsConfig, ImplicitTLS: true}, config.MailTLSImplicit, true},
		{"starttls required", mailbox.Options{}, config.MailTLSStartTLS, false},
		{"untrusted certificate", mailbox.Options{TLSConfig: tlsConfig}, "untrusted", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t, gormstore.DriverSQLite, rigOptions{box: tc.box, settings: func(s *mail.SMTPSettings) {
				s.TLS, s.RootCAs = tc.mode, ca.Pool
				if tc.mode == "untrusted" {
					s.TLS, s.RootCAs = config.MailTLSStartTLS, x509.NewCertPool()
				}
			}})
			must(t, r.queue.Send(t.Context(), message(1, "ada@example.test", "https://x.test/")))
			r.runOnce(t, 1)
			e := r.entry(t, 1)
			if tc.arrives {
				if e.State != mail.StateSent || len(r.box.Messages()) != 1 {
					t.Errorf("entry %+v, %d messages", e, len(r.box.Messages()))
				}
				return
			}
			if e.State != mail.StatePending || len(r.box.Messages()) != 0 {
				t.Errorf("entry %+v, %d messages", e, len(r.box.Messages()))
			}
		})
	}
}

func TestNewSMTPSenderRefusesPlainTextOffLoopback(t *testing.T) {
	for host, ok := range map[string]bool{"127.0.0.1": true, "localhost": true, "[::1]": true, "smtp.example.com": false, "10.0.0.1": false} {
		_, err := mail.NewSMTPSender(mail.SMTPSettings{Host: host, Port: 25, TLS: config.MailTLSNone}, fromOf)
		if (err == nil) != ok {
			t.Errorf("host %s with TLS none: error %v", host, err)
		}
	}
	if _, err := mail.NewSMTPSender(mail.SMTPSettings{Host: "smtp.example.com", Port: 587, TLS: "ssl"}, fromOf); err == nil {
		t.Error("an unknown TLS mode was accepted")
	}
}

func TestMessageID(t *testing.T) {
	if got := mail.MessageID(42, "noreply@school.example"); got != "outbox.42@school.example" {
		t.Errorf("MessageID = %q", got)
	}
	if a, b := mail.MessageID(7, "x@a.example"), mail.MessageID(7, "x@a.example"); a != b {
		t.Error("MessageID differs between attempts")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
