package mail

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"

	"github.com/proctorhq/proctor/config"
)

// SMTPSettings say how to reach the SMTP server (config.Mail, resolved).
type SMTPSettings struct {
	Host     string
	Port     int
	Username string
	Password config.Secret
	// TLS is config.MailTLSStartTLS, config.MailTLSImplicit or config.MailTLSNone (loopback
	// hosts only).
	TLS     string
	Timeout time.Duration
	// RootCAs verifies the server's certificate; nil: the system's roots. Tests set it to trust
	// their own certificate.
	RootCAs *x509.CertPool
}

// FromFunc returns the From address and display name of a school's e-mail.
type FromFunc func(schoolID int64) (addr, name string)

// SMTPSender delivers messages to one SMTP server, one connection per message.
type SMTPSender struct {
	settings SMTPSettings
	from     FromFunc
	now      func() time.Time
}

// NewSMTPSender checks the settings and returns a sender. Plain text (TLS "none") is refused
// unless the host is a loopback address, whatever the configuration said: a password and the
// messages' one-time links must not cross a network in clear.
func NewSMTPSender(s SMTPSettings, from FromFunc) (*SMTPSender, error) {
	switch {
	case s.Host == "":
		return nil, errors.New("mail: no SMTP host")
	case s.Port < 1 || s.Port > 65535:
		return nil, fmt.Errorf("mail: SMTP port %d out of range", s.Port)
	case from == nil:
		return nil, errors.New("mail: no From function")
	}
	switch s.TLS {
	case config.MailTLSStartTLS, config.MailTLSImplicit:
	case config.MailTLSNone:
		if !config.IsLoopbackHost(strings.Trim(s.Host, "[]")) {
			return nil, fmt.Errorf("mail: TLS mode none is allowed only with a loopback host, not %q", s.Host)
		}
	default:
		return nil, fmt.Errorf("mail: unknown TLS mode %q", s.TLS)
	}
	orDefault(&s.Timeout, config.DefaultMailTimeout)
	return &SMTPSender{settings: s, from: from, now: time.Now}, nil
}

// SendError is a failed delivery. Permanent failures (the server answered 5xx) are not retried.
type SendError struct {
	Permanent bool
	// Code is the SMTP reply code, 0 when there was none (connection or TLS failure).
	Code int
	Err  error
}

func (e *SendError) Error() string {
	kind := "temporary"
	if e.Permanent {
		kind = "permanent"
	}
	return fmt.Sprintf("mail: %s delivery failure: %v", kind, e.Err)
}

func (e *SendError) Unwrap() error { return e.Err }

// IsPermanent reports whether err is a delivery failure that retrying cannot fix.
func IsPermanent(err error) bool {
	var se *SendError
	return errors.As(err, &se) && se.Permanent
}

// MessageID returns the Message-ID (without angle brackets) of outbox entry id sent from
// address from: the same for every attempt, so that a message sent twice (the at-least-once
// edge, docs/accounts.md) is recognisable as one.
func MessageID(id int64, from string) string {
	domain := "proctor.invalid"
	if at := strings.LastIndexByte(from, '@'); at >= 0 && at < len(from)-1 {
		domain = from[at+1:]
	}
	return "outbox." + strconv.FormatInt(id, 10) + "@" + domain
}

// Send delivers m, the content of outbox entry id.
func (s *SMTPSender) Send(ctx context.Context, id int64, m Message) error {
	msg, err := s.compose(id, m)
	if err != nil {
		return &SendError{Permanent: true, Err: err}
	}
	client, err := s.client()
	if err != nil {
		return &SendError{Err: err}
	}
	ctx, cancel := context.WithTimeout(ctx, s.settings.Timeout)
	defer cancel()
	if err := client.DialAndSendWithContext(ctx, msg); err != nil {
		return classify(err, m.To)
	}
	return nil
}

func (s *SMTPSender) compose(id int64, m Message) (*gomail.Msg, error) {
	fromAddr, fromName := s.from(m.SchoolID)
	if fromAddr == "" {
		return nil, fmt.Errorf("no From address for school %d", m.SchoolID)
	}
	msg := gomail.NewMsg()
	if err := msg.FromFormat(fromName, fromAddr); err != nil {
		return nil, fmt.Errorf("From: %w", err)
	}
	if err := msg.AddToFormat(m.ToName, m.To); err != nil {
		return nil, errors.New("unusable recipient address")
	}
	msg.Subject(m.Subject)
	msg.SetDateWithValue(s.now())
	msg.SetMessageIDWithValue(MessageID(id, fromAddr))
	// Text first, HTML last: in multipart/alternative the last part the reader can show wins.
	msg.SetBodyString(gomail.TypeTextPlain, m.Text)
	if m.HTML != "" {
		msg.AddAlternativeString(gomail.TypeTextHTML, m.HTML)
	}
	return msg, nil
}

func (s *SMTPSender) client() (*gomail.Client, error) {
	st := s.settings
	opts := []gomail.Option{
		gomail.WithPort(st.Port),
		gomail.WithTimeout(st.Timeout),
		gomail.WithTLSConfig(&tls.Config{ServerName: strings.Trim(st.Host, "[]"), RootCAs: st.RootCAs, MinVersion: tls.VersionTLS12}),
	}
	switch st.TLS {
	case config.MailTLSStartTLS:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	case config.MailTLSImplicit:
		opts = append(opts, gomail.WithSSL(), gomail.WithTLSPolicy(gomail.NoTLS))
	case config.MailTLSNone:
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
	}
	if st.Username != "" {
		auth := gomail.SMTPAuthAutoDiscover
		if st.TLS == config.MailTLSNone {
			// Loopback only (NewSMTPSender): PLAIN without TLS is what a local relay takes.
			auth = gomail.SMTPAuthPlainNoEnc
		}
		opts = append(opts, gomail.WithSMTPAuth(auth), gomail.WithUsername(st.Username), gomail.WithPassword(string(st.Password)))
	}
	return gomail.NewClient(strings.Trim(st.Host, "[]"), opts...)
}

// classify turns go-mail's error into a SendError: a 5xx reply is permanent, anything else
// (4xx, no connection, a timeout) temporary. The recipient's address is cut out of the text,
// which ends up in logs and the outbox.
func classify(err error, to string) error {
	code := 0
	var se *gomail.SendError
	if errors.As(err, &se) {
		code = se.ErrorCode()
	}
	if code == 0 {
		code = replyCode(err)
	}
	text := err.Error()
	if to != "" {
		text = strings.ReplaceAll(text, to, "<recipient>")
	}
	var netErr net.Error
	permanent := code >= 500 && code < 600 && !errors.As(err, &netErr)
	return &SendError{Permanent: permanent, Code: code, Err: errors.New(text)}
}

// replyCode finds an SMTP reply code in err's chain ("550 5.1.1 ..."), 0 if none.
func replyCode(err error) int {
	for e := err; e != nil; e = errors.Unwrap(e) {
		msg := e.Error()
		if len(msg) >= 4 && (msg[0] == '4' || msg[0] == '5') && msg[3] == ' ' {
			if n, cerr := strconv.Atoi(msg[:3]); cerr == nil {
				return n
			}
		}
		var joined interface{ Unwrap() []error }
		if errors.As(e, &joined) {
			for _, j := range joined.Unwrap() {
				if n := replyCode(j); n != 0 {
					return n
				}
			}
		}
	}
	return 0
}
