package templates

import (
	"context"
	"io"
)

// ForgotPage is the forgotten-password form. It posts email and csrf_token to /login/forgot.
type ForgotPage struct {
	School    string
	CSRFToken string
	Message   string
}

// ForgotSentPage is the one answer to every accepted forgotten-password form. It names no
// address, so that it reads the same whether or not the address is a member's.
type ForgotSentPage struct {
	School string
	// Minutes is how long a reset link works.
	Minutes int
}

// ResetPage is the form that sets a new password from a reset link. It posts token, password,
// password2, signout_apps ("yes" when ticked) and csrf_token to /login/reset.
type ResetPage struct {
	School      string
	MemberEmail string
	Token       string
	CSRFToken   string
	// Message is a sentence above the form (a refused password, passwords that differ).
	Message string
}

// InvitationPage is the page an invitation link opens. For a person without a password it is
// the form that chooses one (posting token, password, password2 and csrf_token to
// /invitation); for one who has a password (HasPassword) it only confirms the new school with a
// button that posts token and csrf_token.
type InvitationPage struct {
	School      string
	MemberName  string
	MemberEmail string
	HasPassword bool
	Token       string
	CSRFToken   string
	Message     string
}

// LinkDeadPage says that a one-time link can no longer be used, and where to go instead.
type LinkDeadPage struct {
	School   string
	Title    string
	Message  string
	NextURL  string
	NextText string
}

// recoveryPages are the pages of invitations and password recovery.
func recoveryPages() []namedPage {
	return []namedPage{
		{"forgot.html", ForgotPage{School: "S", CSRFToken: "t", Message: "m"}},
		{"forgot_sent.html", ForgotSentPage{School: "S", Minutes: 30}},
		{"reset.html", ResetPage{School: "S", MemberEmail: "e@example.com", Token: "x", CSRFToken: "t", Message: "m"}},
		{"invitation.html", InvitationPage{School: "S", MemberName: "N", MemberEmail: "e@example.com", HasPassword: true, Token: "x", CSRFToken: "t", Message: "m"}},
		{"link_dead.html", LinkDeadPage{School: "S", Title: "T", Message: "M", NextURL: "/login", NextText: "n"}},
	}
}

// Forgot renders the forgotten-password form.
func (s *Set) Forgot(ctx context.Context, w io.Writer, v ForgotPage) error {
	return s.renderNamed(ctx, w, "forgot.html", v)
}

// ForgotSent renders the answer to a forgotten-password form.
func (s *Set) ForgotSent(ctx context.Context, w io.Writer, v ForgotSentPage) error {
	return s.renderNamed(ctx, w, "forgot_sent.html", v)
}

// Reset renders the form that sets a new password from a reset link.
func (s *Set) Reset(ctx context.Context, w io.Writer, v ResetPage) error {
	return s.renderNamed(ctx, w, "reset.html", v)
}

// InvitationForm renders the page an invitation link opens.
func (s *Set) InvitationForm(ctx context.Context, w io.Writer, v InvitationPage) error {
	return s.renderNamed(ctx, w, "invitation.html", v)
}

// LinkDead renders the page of a link that has expired or was used.
func (s *Set) LinkDead(ctx context.Context, w io.Writer, v LinkDeadPage) error {
	return s.renderNamed(ctx, w, "link_dead.html", v)
}
