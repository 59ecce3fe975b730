package config

import (
	"fmt"
	"net/mail"
	"strings"
	"time"
)

// Mail is the server file's mail section: the SMTP server Proctor sends its e-mail through.
// Without a Host mail is off: messages wait in the outbox until it is configured.
type Mail struct {
	Host string `mapstructure:"host"`
	// Port is the SMTP server's port: 587 (submission with STARTTLS) by default, 465 for
	// implicit TLS.
	Port     int    `mapstructure:"port"`
	Username string `mapstructure:"username"`
	// Password is given inline (normally through PROCTOR_MAIL_PASSWORD) or by PasswordFile;
	// it prints as [redacted].
	Password     Secret `mapstructure:"password"`
	PasswordFile string `mapstructure:"password_file"`
	// TLS is "starttls" (the connection must be upgraded with STARTTLS, or nothing is sent),
	// "tls" (implicit TLS from the first byte) or "none" (plain text: only to a loopback host,
	// such as a local relay or the demo mailbox).
	TLS string `mapstructure:"tls"`
	// From is the default From address of every school (a school file's mail.from overrides it).
	From string `mapstructure:"from"`
	// Timeout bounds one delivery: connecting, the SMTP dialogue and the message.
	Timeout time.Duration `mapstructure:"timeout"`
}

// Mail TLS modes.
const (
	MailTLSStartTLS = "starttls"
	MailTLSImplicit = "tls"
	MailTLSNone     = "none"
)

// Defaults of the mail section.
const (
	DefaultMailPort    = 587
	DefaultMailTimeout = 30 * time.Second
)

// Enabled reports whether mail is configured (a host is given).
func (m Mail) Enabled() bool { return m.Host != "" }

// SchoolMail is a school file's mail section.
type SchoolMail struct {
	// From is the school's From address; empty: the server's mail.from.
	From string `mapstructure:"from"`
	// FromName is the display name of the From address; empty: the school's name.
	FromName string `mapstructure:"from_name"`
}

// MailFrom returns the From address and display name of the school's e-mail.
func (t School) MailFrom(server Mail) (addr, name string) {
	return t.Mail.Resolve(t.Name, server)
}

// Resolve returns the From address and display name of a school named schoolName: its own
// settings, else the server's From address and the school's name.
func (m SchoolMail) Resolve(schoolName string, server Mail) (addr, name string) {
	addr, name = m.From, m.FromName
	if addr == "" {
		addr = server.From
	}
	if name == "" {
		name = schoolName
	}
	return addr, name
}

// validateMail checks the mail section. A section without a host is valid (mail is off) but may
// not carry settings that would be ignored silently, except the defaults.
func (s *Server) validateMail(c collector) {
	m := s.Mail
	if !m.Enabled() {
		return
	}
	if strings.ContainsAny(m.Host, " /:@") && !strings.HasPrefix(m.Host, "[") {
		c.add("mail.host", "must be a host name or an address, without port or scheme, got %q", m.Host)
	}
	if m.Port < 1 || m.Port > 65535 {
		c.add("mail.port", "must be between 1 and 65535, got %d", m.Port)
	}
	switch m.TLS {
	case MailTLSStartTLS, MailTLSImplicit:
	case MailTLSNone:
		if !IsLoopbackHost(strings.Trim(m.Host, "[]")) {
			c.add("mail.tls", "none (plain text) is allowed only with a loopback host such as 127.0.0.1; use starttls or tls")
		}
	default:
		c.add("mail.tls", "must be starttls, tls or none, got %q", m.TLS)
	}
	if m.From == "" {
		c.add("mail.from", "is required with mail.host (the default From address)")
	} else if err := checkAddress(m.From); err != nil {
		c.add("mail.from", "%v", err)
	}
	if m.Timeout <= 0 {
		c.add("mail.timeout", "must be a positive duration such as 30s")
	}
	if m.Username == "" && (len(m.Password) > 0 || m.PasswordFile != "") {
		c.add("mail.username", "is required with mail.password")
	}
}

// checkAddress accepts a bare e-mail address (no display name: that is from_name's job).
func checkAddress(s string) error {
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s {
		return fmt.Errorf("must be an e-mail address such as noreply@example.com, got %q", s)
	}
	return nil
}

// loadMailPassword reads mail.password_file, if given, into Password.
func loadMailPassword(c collector, serverFile string, m *Mail) {
	if m.PasswordFile == "" {
		return
	}
	if len(m.Password) > 0 {
		c.add("mail.password", "set either mail.password or mail.password_file, not both (from the environment, PROCTOR_MAIL_PASSWORD or PROCTOR_MAIL_PASSWORD_FILE replaces both of the file's)")
		return
	}
	b, ok := readBesideServerFile(c, "mail.password_file", serverFile, m.PasswordFile)
	if !ok {
		return
	}
	p := strings.TrimRight(string(b), "\r\n")
	if p == "" {
		c.add("mail.password_file", "is empty")
		return
	}
	m.Password = Secret(p)
}

// validateMail checks a school file's mail section.
func (t *School) validateMail(c collector) {
	if t.Mail.From != "" {
		if err := checkAddress(t.Mail.From); err != nil {
			c.add("mail.from", "%v", err)
		}
	}
	if strings.ContainsAny(t.Mail.FromName, "\r\n") {
		c.add("mail.from_name", "must be one line")
	}
}
