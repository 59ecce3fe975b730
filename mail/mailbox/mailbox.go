package mailbox

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// DefaultKeep is how many messages a Mailbox keeps when Options.Keep is 0.
const DefaultKeep = 200

// maxMessageBytes bounds one message.
const maxMessageBytes = 10 << 20

// Options configure a Mailbox.
type Options struct {
	// Addr is the loopback address to listen on; "" picks a free port on 127.0.0.1.
	Addr string
	// Keep is how many messages to keep (the oldest go first); 0 is DefaultKeep.
	Keep int
	// TLSConfig, when set, offers STARTTLS (or, with ImplicitTLS, speaks TLS from the start).
	TLSConfig   *tls.Config
	ImplicitTLS bool
	// Reject, when it returns true for a recipient, refuses it with 550 (a permanent failure).
	Reject func(rcpt string) bool
}

// Mailbox is a running in-memory SMTP server.
type Mailbox struct {
	opts Options
	addr string

	mu       sync.Mutex
	server   *smtp.Server
	listener net.Listener
	serving  chan struct{} // closed when the current server's Serve returns
	messages []Message     // oldest first
	seq      int
	changed  chan struct{} // closed and replaced whenever a message arrives
}

// Start listens on opts.Addr (loopback only) and serves until Close.
func Start(opts Options) (*Mailbox, error) {
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	if err := CheckLoopback(opts.Addr); err != nil {
		return nil, err
	}
	if opts.Keep <= 0 {
		opts.Keep = DefaultKeep
	}
	m := &Mailbox{opts: opts, changed: make(chan struct{})}
	if err := m.listen(opts.Addr); err != nil {
		return nil, err
	}
	return m, nil
}

// CheckLoopback refuses an address whose host is not a loopback address or localhost.
func CheckLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("mailbox: %w", err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("mailbox: %s is not a loopback address (the mailbox accepts anything: it must not listen on a network)", addr)
	}
	return nil
}

func (m *Mailbox) listen(addr string) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("mailbox: listen: %w", err)
	}
	if m.opts.ImplicitTLS {
		if m.opts.TLSConfig == nil {
			_ = l.Close()
			return errors.New("mailbox: implicit TLS needs a TLS config")
		}
		l = tls.NewListener(l, m.opts.TLSConfig)
	}
	s := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &session{box: m}, nil }))
	s.Domain = "mailbox.localhost"
	s.MaxMessageBytes = maxMessageBytes
	s.MaxRecipients = 50
	s.AllowInsecureAuth = true
	s.ReadTimeout = time.Minute
	s.WriteTimeout = time.Minute
	s.ErrorLog = discardLogger{}
	if !m.opts.ImplicitTLS {
		s.TLSConfig = m.opts.TLSConfig
	}
	done := make(chan struct{})
	m.mu.Lock()
	m.server, m.listener, m.serving, m.addr = s, l, done, l.Addr().String()
	m.mu.Unlock()
	go func() {
		defer close(done)
		_ = s.Serve(l)
	}()
	return nil
}

type discardLogger struct{}

func (discardLogger) Printf(string, ...any) {}
func (discardLogger) Println(...any)        {}

// Addr is the address the mailbox listens on (host:port).
func (m *Mailbox) Addr() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.addr
}

// HostPort is Addr as SMTP settings take it: the host, and the port as a number.
func (m *Mailbox) HostPort() (host string, port int) {
	// Addr is what a TCP listener reports, so it always splits and its port is a number.
	host, p, _ := net.SplitHostPort(m.Addr())
	port, _ = strconv.Atoi(p)
	return host, port
}

// Stop closes the listener and every connection: the address refuses connections until Resume.
// The messages stay.
func (m *Mailbox) Stop() {
	m.mu.Lock()
	s, l, done := m.server, m.listener, m.serving
	m.server, m.listener = nil, nil
	m.mu.Unlock()
	if s == nil {
		return
	}
	// Closing the listener ourselves too: Serve may not have registered it with the server yet.
	_ = l.Close()
	_ = s.Close()
	<-done
}

// Resume listens again on the address the mailbox had.
func (m *Mailbox) Resume() error {
	m.mu.Lock()
	running := m.server != nil
	addr := m.addr
	m.mu.Unlock()
	if running {
		return nil
	}
	return m.listen(addr)
}

// Close stops the mailbox for good.
func (m *Mailbox) Close() error {
	m.Stop()
	return nil
}

// Messages returns the kept messages, oldest first.
func (m *Mailbox) Messages() []Message {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Message(nil), m.messages...)
}

// Wait returns the first kept message, oldest first, for which match is true, waiting for one
// to arrive until ctx ends.
func (m *Mailbox) Wait(ctx context.Context, match func(Message) bool) (Message, error) {
	for {
		m.mu.Lock()
		changed := m.changed
		for _, msg := range m.messages {
			if match(msg) {
				m.mu.Unlock()
				return msg, nil
			}
		}
		m.mu.Unlock()
		select {
		case <-ctx.Done():
			return Message{}, fmt.Errorf("mailbox: no matching message: %w", ctx.Err())
		case <-changed:
		}
	}
}

func (m *Mailbox) deliver(from string, to []string, raw []byte) {
	msg := Parse(raw)
	msg.EnvelopeFrom = from
	msg.EnvelopeTo = to
	msg.ReceivedAt = time.Now().UTC()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seq++
	msg.Seq = m.seq
	m.messages = append(m.messages, msg)
	if over := len(m.messages) - m.opts.Keep; over > 0 {
		m.messages = append([]Message(nil), m.messages[over:]...)
	}
	close(m.changed)
	m.changed = make(chan struct{})
}

// session is one SMTP conversation.
type session struct {
	box  *Mailbox
	from string
	to   []string
}

var _ smtp.AuthSession = (*session)(nil)

func (s *session) AuthMechanisms() []string { return []string{sasl.Plain} }

// Auth accepts any credentials: the mailbox stands in for a relay that wants them.
func (s *session) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(identity, username, password string) error { return nil }), nil
}

func (s *session) Reset() { s.from, s.to = "", nil }

func (s *session) Logout() error { return nil }

func (s *session) Mail(from string, _ *smtp.MailOptions) error {
	s.from = from
	return nil
}

func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	if s.box.opts.Reject != nil && s.box.opts.Reject(to) {
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such mailbox"}
	}
	s.to = append(s.to, to)
	return nil
}

func (s *session) Data(r io.Reader) error {
	var b bytes.Buffer
	if _, err := io.Copy(&b, r); err != nil {
		return err
	}
	s.box.deliver(s.from, append([]string(nil), s.to...), b.Bytes())
	return nil
}
