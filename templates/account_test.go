package templates

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestAccountPages(t *testing.T) {
	s := newSet(t)
	var b bytes.Buffer
	err := s.Account(context.Background(), &b, AccountPage{
		School: "A", MemberName: hostile, MemberEmail: "ann@example.com", PictureURL: "https://img.example/a.png?x=1&y=2", ShowPicture: true,
		CSRFToken: "tok", Notice: "Saved.", Name: hostile, MaxName: 100, MaxPicture: 2048, MaxEmail: 254, MinPasswordRune: 8,
		Sessions: []AccountSession{{ID: "s1", Device: "Chrome on macOS", Current: true}, {ID: "s2", Device: "Firefox on Windows"}},
		Apps:     []AccountApp{{ClientID: "c1", Name: hostile, Scopes: []ScopeItem{{"openid", "Confirm who you are"}}}},
		Events:   []AccountEvent{{What: "Signed in", Detail: hostile}},
	})
	if err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		`<img src="https://img.example/a.png?x=1&amp;y=2"`, "Saved.", "This device", "Firefox on Windows",
		`action="/account/profile"`, `action="/account/password"`, `action="/account/email"`, `action="/account/sessions/end"`,
		`action="/account/sessions/end-others"`, `action="/account/apps/remove"`, `action="/logout"`,
		`name="session_id" value="s2"`, `name="client_id" value="c1"`, `name="csrf_token" value="tok"`, "Confirm who you are",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("account page lacks %q", want)
		}
	}
	if strings.Contains(page, "<script>") || strings.Contains(page, `value="s1"`) {
		t.Error("unescaped value, or an end form for the current session")
	}
	if strings.Count(page, `name="csrf_token" value="tok"`) != strings.Count(page, "<form") {
		t.Error("a form without the CSRF token")
	}

	// Without an https picture no image is drawn.
	b.Reset()
	if err := s.Account(context.Background(), &b, AccountPage{School: "A", MemberEmail: "a@example.com", PictureURL: "javascript:alert(1)"}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "<img") {
		t.Error("an image without ShowPicture")
	}

	b.Reset()
	if err := s.EmailConfirm(context.Background(), &b, EmailConfirmPage{School: "A", MemberEmail: "a@example.com", NewEmail: hostile, Token: "tk", CSRFToken: "tok"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`action="/account/email/confirm"`, `name="token" value="tk"`, `name="csrf_token" value="tok"`, "&lt;script&gt;"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("confirm page lacks %q", want)
		}
	}
}
