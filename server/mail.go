package server

import (
	"context"
	"maps"
	"sync"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/mail"
)

// setUpMail builds the mail queue and, when mail is configured, the worker that Serve runs.
// Without mail.host the queue still takes messages: they wait in the outbox until mail is
// configured, which the log says once at start-up.
func (s *Server) setUpMail() error {
	store, ok := s.deps.Store.(mail.Store)
	if !ok || s.deps.Store == nil {
		// A store without an outbox (none in Proctor; some tests' stand-ins): nothing to send.
		return nil
	}
	q, err := mail.NewQueue(store, s.deps.Config.Secret, nil)
	if err != nil {
		return err
	}
	s.mailQueue = q
	return nil
}

// setUpMailWorker builds the worker that empties the outbox, once the handlers are mounted:
// the account pages contribute the expanders of their request entries (a password reset asked
// for an address). Without mail.host there is no worker, and messages wait.
func (s *Server) setUpMailWorker() error {
	store, ok := s.deps.Store.(mail.Store)
	if s.mailQueue == nil || !ok || s.deps.Only == OnlyMemberAPI {
		// A Member API process sends nothing: it could not expand the account pages' requests.
		return nil
	}
	cfg := s.deps.Config.Mail
	if !cfg.Enabled() {
		s.log.Warn("mail is not configured (mail.host): messages wait in the outbox until it is")
		return nil
	}
	sender, err := mail.NewSMTPSender(mail.SMTPSettings{
		Host: cfg.Host, Port: cfg.Port, Username: cfg.Username, Password: cfg.Password,
		TLS: cfg.TLS, Timeout: cfg.Timeout, RootCAs: s.deps.MailRootCAs,
	}, s.mailFrom)
	if err != nil {
		return err
	}
	expanders := maps.Clone(s.mailExpanders)
	if expanders == nil {
		expanders = map[string]mail.Expander{}
	}
	maps.Copy(expanders, s.deps.MailExpanders)
	w, err := mail.NewWorker(store, s.traceSender(sender), s.deps.Config.Secret, mail.Options{
		Logger: s.log.With("component", "mail"), Expanders: expanders,
	})
	if err != nil {
		return err
	}
	s.mailQueue.OnEnqueue(w.Wake)
	s.mailWorker = w
	return nil
}

// mailFrom is the From address and name of a school's e-mail (config.SchoolMail.Resolve).
func (s *Server) mailFrom(schoolID int64) (addr, name string) {
	if s.deps.Schools != nil {
		if t, ok := s.deps.Schools.BySchoolID(schoolID); ok {
			return t.Mail.Resolve(t.Name, s.deps.Config.Mail)
		}
	}
	return config.SchoolMail{}.Resolve("", s.deps.Config.Mail)
}

// MailQueue is where handlers put the messages they send (nil when the store keeps no outbox).
func (s *Server) MailQueue() *mail.Queue { return s.mailQueue }

// startMail runs the worker until the returned stop is called; stop waits for the message in
// flight.
func (s *Server) startMail(ctx context.Context) (stop func()) {
	if s.mailWorker == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { s.mailWorker.Run(ctx) })
	return func() {
		cancel()
		wg.Wait()
	}
}
