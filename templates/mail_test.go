package templates

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/proctorhq/proctor/i18n"
)

// Every kind of e-mail is written in the language of the context's localizer: its subject, its
// text and its HTML (whose lang says so), with no sentence of the English left; the dates in it
// are the ones the sender wrote with that localizer (the school's time zone).
func TestMailInEveryLanguage(t *testing.T) {
	s := newSet(t)
	taipei := time.FixedZone("CST", 8*3600)
	at := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	type kind struct {
		name string
		// render renders the kind with loc's dates.
		render func(ctx context.Context, loc *i18n.Localizer) (MailContent, error)
		// english are sentences of the English message that must not stay in another language.
		english []string
	}
	expires := func(loc *i18n.Localizer) string {
		return loc.Text("mail.expires_days", "Count", 7, "At", loc.DateTime(at))
	}
	kinds := []kind{
		{"invitation", func(ctx context.Context, loc *i18n.Localizer) (MailContent, error) {
			return s.Invitation(ctx, InvitationMail{School: "Northwind", MemberName: "Ada", Link: "https://n.example/i?token=x", Expires: expires(loc)})
		}, []string{"You are invited", "Choose your password", "The link works once", "This message was sent by", "Hello"}},
		{"password_reset", func(ctx context.Context, loc *i18n.Localizer) (MailContent, error) {
			return s.PasswordReset(ctx, ResetMail{School: "Northwind", MemberName: "Ada", Link: "https://n.example/r?token=x", Expires: expires(loc)})
		}, []string{"Reset your password", "Someone, probably you", "Choose a new password", "The link works once", "Hello"}},
		{"email_change", func(ctx context.Context, loc *i18n.Localizer) (MailContent, error) {
			return s.EmailChange(ctx, EmailChangeMail{School: "Northwind", MemberName: "Ada", NewEmail: "new@example.com", Link: "https://n.example/e?token=x", Expires: expires(loc)})
		}, []string{"Confirm your new e-mail address", "You asked to change", "Confirm the new address", "The link works once", "Hello"}},
		{"email_changed", func(ctx context.Context, loc *i18n.Localizer) (MailContent, error) {
			return s.EmailChanged(ctx, EmailChangedMail{School: "Northwind", MemberName: "Ada", At: loc.DateTime(at)})
		}, []string{"was changed", "If you made this change", "Hello"}},
	}
	for _, tc := range []struct {
		lang, subject, sentence, date string
	}{
		{"ja", "Northwind", "様", "2026年12月2日 18:00 CST"},
		{"zh-TW", "Northwind", "您好", "2026年12月2日 18:00 CST"},
	} {
		loc := s.Catalog().Localizer(tc.lang, taipei)
		ctx := i18n.NewContext(context.Background(), loc)
		for _, k := range kinds {
			c, err := k.render(ctx, loc)
			if err != nil {
				t.Fatalf("%s %s: %v", tc.lang, k.name, err)
			}
			if !strings.Contains(c.Subject, tc.subject) || !hasHan(c.Subject) {
				t.Errorf("%s %s: subject %q is not in the language", tc.lang, k.name, c.Subject)
			}
			if !strings.Contains(c.HTML, `<html lang="`+tc.lang+`">`) {
				t.Errorf("%s %s: the HTML does not say its language:\n%s", tc.lang, k.name, c.HTML)
			}
			for part, body := range map[string]string{"text": c.Text, "html": c.HTML} {
				if !strings.Contains(body, tc.sentence) || !strings.Contains(body, tc.date) {
					t.Errorf("%s %s %s: no %q or no date %q:\n%s", tc.lang, k.name, part, tc.sentence, tc.date, body)
				}
				for _, en := range k.english {
					if strings.Contains(body, en) {
						t.Errorf("%s %s %s: English %q left:\n%s", tc.lang, k.name, part, en, body)
					}
				}
			}
		}
	}
	// English stays as it was.
	c, err := s.Invitation(context.Background(), InvitationMail{School: "Northwind", MemberName: "Ada", Link: "https://n.example/i", Expires: "in 7 days"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Subject != "You are invited to Northwind" || !strings.HasPrefix(c.Text, "Hello Ada,\n\nYou have been invited to Northwind.\n") ||
		!strings.Contains(c.Text, "The link works once and expires in 7 days.") || !strings.Contains(c.HTML, `<html lang="en">`) {
		t.Errorf("English invitation:\n%s\n%s\n%s", c.Subject, c.Text, c.HTML)
	}
}

// hasHan reports whether s holds a Han character or kana, which every ja and zh-TW subject
// does and no English one.
func hasHan(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) }) >= 0
}
