package server

import (
	"context"
	"errors"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/mail"
	"github.com/proctorhq/proctor/mail/mailbox"
	"github.com/proctorhq/proctor/server/servertest/schools"
)

// endedSpans hands each span that ends to a channel (buffered beyond what a test ends).
type endedSpans chan sdktrace.ReadOnlySpan

func (c endedSpans) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (c endedSpans) OnEnd(s sdktrace.ReadOnlySpan)                   { c <- s }
func (c endedSpans) Shutdown(context.Context) error                  { return nil }
func (c endedSpans) ForceFlush(context.Context) error                { return nil }

// ended returns the first span named name among those that have ended.
func (c endedSpans) ended(t *testing.T, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	for {
		select {
		case s := <-c:
			if s.Name() == name {
				return s
			}
		default:
			t.Fatalf("no span %q has ended", name)
			return nil
		}
	}
}

// TestMailSendTraced checks the outgoing mail's spans: with tracing on, each message the mail
// worker sends is a client span of its own trace (the worker runs outside any request) naming
// the school, the kind of message and the outbox entry, never the recipient or the subject.
func TestMailSendTraced(t *testing.T) {
	box, smtp := schools.Mailbox(t, mailbox.Options{})

	spans := make(endedSpans, 1024)
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	f := newFixture(t, func(s *config.Server) {
		s.Mail = config.Mail{Host: smtp.Host, Port: smtp.Port, TLS: smtp.TLS, From: "noreply@localhost", Timeout: smtp.Timeout}
	})
	s, err := New(Deps{Config: f.srv.deps.Config, Schools: f.srv.deps.Schools, Store: f.store, Tracing: tp})
	if err != nil {
		t.Fatal(err)
	}
	stop := s.startMail(t.Context())
	t.Cleanup(stop)

	const to, subject = "ada@example.test", "Your invitation"
	if err := s.MailQueue().Send(t.Context(), mail.Message{SchoolID: 1, Kind: "invitation", To: to, Subject: subject, Text: "hi", HTML: "<p>hi</p>"}); err != nil {
		t.Fatal(err)
	}
	if _, err := box.Wait(t.Context(), func(m mailbox.Message) bool { return m.Subject == subject }); err != nil {
		t.Fatal(err)
	}
	// Stopping the worker waits for the send in flight, whose span ends as the send returns.
	stop()
	span := spans.ended(t, "send mail")
	if span.SpanKind() != trace.SpanKindClient || span.Parent().IsValid() {
		t.Errorf("send mail: kind %v, parent %v; want a client span that starts its trace", span.SpanKind(), span.Parent())
	}
	if span.Status().Code == codes.Error {
		t.Errorf("send mail: status %v", span.Status())
	}
	got := map[string]string{}
	for _, kv := range span.Attributes() {
		got[string(kv.Key)] = kv.Value.Emit()
		if strings.Contains(kv.Value.Emit(), "ada@") || strings.Contains(kv.Value.Emit(), subject) {
			t.Errorf("send mail: %s carries the recipient or subject: %s", kv.Key, kv.Value.Emit())
		}
	}
	if got["proctor.school_id"] != "1" || got["proctor.mail.kind"] != "invitation" || got["proctor.mail.outbox_id"] == "" || got["proctor.mail.outbox_id"] == "0" {
		t.Errorf("send mail: attributes %v", got)
	}
}

// failingSender refuses every message.
type failingSender struct{}

func (failingSender) Send(context.Context, int64, mail.Message) error { return errors.New("refused") }

// TestMailSendSpanFails: a send that fails marks its span failed; without a tracer the sender
// is not wrapped at all.
func TestMailSendSpanFails(t *testing.T) {
	spans := make(endedSpans, 4)
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	s := &Server{tracer: tp.Tracer("test")}
	if err := s.traceSender(failingSender{}).Send(t.Context(), 7, mail.Message{SchoolID: 2, Kind: "password_reset"}); err == nil {
		t.Fatal("the failure was lost")
	}
	if span := spans.ended(t, "send mail"); span.Status().Code != codes.Error {
		t.Errorf("a failed send's span: status %v", span.Status())
	}
	if _, wrapped := (&Server{}).traceSender(failingSender{}).(tracedSender); wrapped {
		t.Error("the sender is wrapped with tracing off")
	}
}
