package templates

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestRecoveryPages(t *testing.T) {
	s := newSet(t)
	for _, tc := range []struct {
		name   string
		render func(*bytes.Buffer) error
		want   []string
		not    []string
	}{
		{"forgot", func(b *bytes.Buffer) error {
			return s.Forgot(context.Background(), b, ForgotPage{School: hostile, CSRFToken: "tok", Message: "Enter your e-mail address."})
		}, []string{`action="/login/forgot"`, `name="email"`, `name="csrf_token" value="tok"`, "Enter your e-mail address.", "&lt;script&gt;"}, nil},
		{"forgot sent", func(b *bytes.Buffer) error {
			return s.ForgotSent(context.Background(), b, ForgotSentPage{School: "A", Minutes: 30})
		},
			[]string{"If an account exists for that address, we have sent a link to it. It works for 30 minutes."}, []string{"<form"}},
		{"reset", func(b *bytes.Buffer) error {
			return s.Reset(context.Background(), b, ResetPage{School: "A", MemberEmail: "ann@example.com", Token: "t0k", CSRFToken: "tok", Message: hostile})
		}, []string{`action="/login/reset"`, `name="token" value="t0k"`, `name="password"`, `name="password2"`, `name="signout_apps" value="yes"`,
			"Also sign out of all applications", `name="csrf_token" value="tok"`, "ann@example.com", "&lt;script&gt;"}, nil},
		{"invitation without password", func(b *bytes.Buffer) error {
			return s.InvitationForm(context.Background(), b, InvitationPage{School: "A", MemberName: hostile, MemberEmail: "nia@example.com", Token: "t0k", CSRFToken: "tok"})
		}, []string{`action="/invitation"`, `name="token" value="t0k"`, `name="password2"`, "nia@example.com", "&lt;script&gt;"}, []string{"You now belong"}},
		{"invitation with password", func(b *bytes.Buffer) error {
			return s.InvitationForm(context.Background(), b, InvitationPage{School: "School B", MemberName: "Ann", MemberEmail: "ann@example.com", HasPassword: true, Token: "t0k", CSRFToken: "tok"})
		}, []string{"You now belong to School B", "Sign in with the password you already use", `name="token" value="t0k"`, `action="/invitation"`}, []string{`name="password"`}},
		{"link dead", func(b *bytes.Buffer) error {
			return s.LinkDead(context.Background(), b, LinkDeadPage{School: "A", Title: "This link has expired or was already used", Message: "m", NextURL: "/login/forgot", NextText: "Ask for a new link"})
		}, []string{"This link has expired or was already used", `href="/login/forgot"`, "Ask for a new link"}, nil},
	} {
		var b bytes.Buffer
		if err := tc.render(&b); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: missing %q in\n%s", tc.name, w, b.String())
			}
		}
		for _, w := range append(tc.not, hostile, "<script") {
			if strings.Contains(b.String(), w) {
				t.Errorf("%s: contains %q", tc.name, w)
			}
		}
	}
	var b bytes.Buffer
	if err := s.Login(context.Background(), &b, LoginPage{School: "A", CSRFToken: "t"}); err != nil || !strings.Contains(b.String(), `href="/login/forgot"`) {
		t.Errorf("the sign-in page does not link to the forgotten-password form (%v)", err)
	}
}
