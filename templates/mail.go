package templates

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	htmltemplate "html/template"
	"strings"
	texttemplate "text/template"

	"github.com/proctorhq/proctor/i18n"
)

//go:embed mail/*.txt mail/*.html
var mailFiles embed.FS

// MailContent is a rendered e-mail: its subject, a plain-text body and an HTML body saying the
// same. Package mail sends it as multipart/alternative.
type MailContent struct {
	Subject, Text, HTML string
}

// InvitationMail invites a member to a school. Link opens the page where they choose a password;
// for a person who already has a password (at another school), HasPassword is set and Link
// leads to the page that confirms the new school and sends them to sign in.
type InvitationMail struct {
	School      string
	MemberName  string
	Link        string
	Expires     string // e.g. "in 7 days (2026-12-02 18:00 UTC)"
	HasPassword bool
}

// ResetMail carries a password-reset link.
type ResetMail struct {
	School     string
	MemberName string
	Link       string
	Expires    string
}

// EmailChangeMail asks the owner of a new address to confirm it.
type EmailChangeMail struct {
	School     string
	MemberName string
	NewEmail   string
	Link       string
	Expires    string
}

// EmailChangedMail tells the previous address of an account that the account's address was
// changed: if someone else did it, its owner learns of it where they still read mail.
type EmailChangedMail struct {
	School     string
	MemberName string
	// At is when the change was made, e.g. "2026-11-25 18:00 UTC".
	At string
}

// mailKinds are the message kinds, each with mail/<kind>.txt (templates "subject" and "text")
// and mail/<kind>.html (template "html"), and the sample each is checked with at start-up.
var mailKinds = []struct {
	kind   string
	sample any
}{
	{"invitation", InvitationMail{School: "S", MemberName: "N", Link: "https://s.example/x", Expires: "e", HasPassword: true}},
	{"password_reset", ResetMail{School: "S", MemberName: "N", Link: "https://s.example/x", Expires: "e"}},
	{"email_change", EmailChangeMail{School: "S", MemberName: "N", NewEmail: "n@example.com", Link: "https://s.example/x", Expires: "e"}},
	{"email_changed", EmailChangedMail{School: "S", MemberName: "N", At: "t"}},
}

type mailTemplates struct {
	text *texttemplate.Template
	html *htmltemplate.Template
}

// parseMail parses every mail kind in every language and renders each with its sample.
func parseMail(s *Set) (map[string]map[string]mailTemplates, error) {
	out := map[string]map[string]mailTemplates{}
	for _, k := range mailKinds {
		out[k.kind] = map[string]mailTemplates{}
		for _, l := range i18n.Supported {
			loc := s.catalog.Localizer(l.Tag, nil)
			funcs := map[string]any{"t": loc.T, "lang": loc.Lang}
			txt, err := texttemplate.New(k.kind).Funcs(funcs).ParseFS(mailFiles, "mail/"+k.kind+".txt")
			if err != nil {
				return nil, fmt.Errorf("templates: mail %s: %w", k.kind, err)
			}
			html, err := htmltemplate.New(k.kind).Funcs(funcs).ParseFS(mailFiles, "mail/layout.html", "mail/"+k.kind+".html")
			if err != nil {
				return nil, fmt.Errorf("templates: mail %s: %w", k.kind, err)
			}
			mt := mailTemplates{text: txt, html: html}
			if _, err := mt.render(k.kind, sampleLook, k.sample); err != nil {
				return nil, fmt.Errorf("%w (%s)", err, l.Tag)
			}
			out[k.kind][l.Tag] = mt
		}
	}
	return out, nil
}

// mailPage is what an e-mail's HTML layout executes with: the school's look (its colour and
// logo) around the message's data, which the message's own template receives unchanged.
type mailPage struct {
	Look Look
	Data any
}

func (mt mailTemplates) render(kind string, look Look, v any) (MailContent, error) {
	var subject, text, html bytes.Buffer
	if err := mt.text.ExecuteTemplate(&subject, "subject", v); err != nil {
		return MailContent{}, fmt.Errorf("templates: mail %s subject: %w", kind, err)
	}
	if err := mt.text.ExecuteTemplate(&text, "text", v); err != nil {
		return MailContent{}, fmt.Errorf("templates: mail %s text: %w", kind, err)
	}
	if err := mt.html.ExecuteTemplate(&html, "layout.html", mailPage{Look: look, Data: v}); err != nil {
		return MailContent{}, fmt.Errorf("templates: mail %s html: %w", kind, err)
	}
	// A subject is one line: a school name with a line break in it must not add a header.
	sub := strings.Join(strings.Fields(subject.String()), " ")
	return MailContent{Subject: sub, Text: strings.TrimSpace(text.String()) + "\n", HTML: html.String()}, nil
}

// renderMail renders a mail kind in the language of ctx's localizer.
func (s *Set) renderMail(ctx context.Context, kind string, v any) (MailContent, error) {
	byLang, ok := s.mail[kind]
	if !ok {
		return MailContent{}, fmt.Errorf("templates: no mail %s", kind)
	}
	return byLang[i18n.FromContext(ctx).Lang()].render(kind, LookFromContext(ctx), v)
}

// Invitation renders an invitation.
func (s *Set) Invitation(ctx context.Context, v InvitationMail) (MailContent, error) {
	return s.renderMail(ctx, "invitation", v)
}

// PasswordReset renders a password-reset message.
func (s *Set) PasswordReset(ctx context.Context, v ResetMail) (MailContent, error) {
	return s.renderMail(ctx, "password_reset", v)
}

// EmailChange renders the confirmation of a new e-mail address.
func (s *Set) EmailChange(ctx context.Context, v EmailChangeMail) (MailContent, error) {
	return s.renderMail(ctx, "email_change", v)
}

// EmailChanged renders the notice to an account's previous address.
func (s *Set) EmailChanged(ctx context.Context, v EmailChangedMail) (MailContent, error) {
	return s.renderMail(ctx, "email_changed", v)
}
