package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/mail"
	"github.com/proctorhq/proctor/mail/mailbox"
	"github.com/proctorhq/proctor/server/servertest/schools"
)

// TestServeSendsMail: while Serve runs, a message put into the queue reaches the SMTP server
// with the school's From; Serve stops the worker on shutdown.
func TestServeSendsMail(t *testing.T) {
	box, smtp := schools.Mailbox(t, mailbox.Options{})
	f := newFixture(t, func(s *config.Server) {
		s.HTTP.ShutdownGrace = 2 * time.Second
		s.Mail = config.Mail{Host: smtp.Host, Port: smtp.Port, TLS: smtp.TLS, From: "noreply@localhost", Timeout: smtp.Timeout}
	})
	if f.srv.mailWorker == nil || f.srv.MailQueue() == nil {
		t.Fatal("no mail worker or queue with mail configured")
	}
	_, stop := f.serve(t)

	err := f.srv.MailQueue().Send(t.Context(), mail.Message{SchoolID: 1, Kind: "invitation", To: "ada@example.test", Subject: "Hello", Text: "hi", HTML: "<p>hi</p>"})
	if err != nil {
		t.Fatal(err)
	}
	wait, stop := context.WithTimeout(t.Context(), 60*time.Second)
	defer stop()
	m, err := box.Wait(wait, func(m mailbox.Message) bool { return m.Subject == "Hello" })
	if err != nil {
		t.Fatal(err)
	}
	if m.From != "noreply@localhost" || m.FromName != "Northwind" || m.To[0] != "ada@example.test" {
		t.Errorf("message: %+v", m)
	}
	stop()
}

// TestMailOffWarns: without mail.host the server starts, keeps a queue (messages wait in the
// outbox) and says so once; it runs no worker.
func TestMailOffWarns(t *testing.T) {
	f := newFixture(t, nil)
	logs, logger := schools.NewLog()
	s, err := New(Deps{Config: f.srv.deps.Config, Schools: f.srv.deps.Schools, Store: f.store, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	if s.mailWorker != nil || s.MailQueue() == nil {
		t.Errorf("mail off: worker %v, queue %v", s.mailWorker, s.MailQueue())
	}
	if !strings.Contains(logs.String(), "messages wait in the outbox until it is") {
		t.Errorf("no warning: %s", logs.String())
	}
}

// TestInternalMailbox: the demo's mailbox page is served on the internal listener only.
func TestInternalMailbox(t *testing.T) {
	f := newFixture(t, nil)
	box, _ := schools.Mailbox(t, mailbox.Options{})
	s, err := New(Deps{Config: f.srv.deps.Config, Schools: f.srv.deps.Schools, Store: f.store, MailboxHandler: box.Handler()})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/mail", "/mail/messages.json"} {
		rec := httptest.NewRecorder()
		s.InternalHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != http.StatusOK {
			t.Errorf("internal GET %s: %d", path, rec.Code)
		}
		rec = httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Host = "127.0.0.1:8080"
		s.PublicHandler().ServeHTTP(rec, req)
		if rec.Code != http.StatusNotFound {
			t.Errorf("public GET %s: %d", path, rec.Code)
		}
	}
}
