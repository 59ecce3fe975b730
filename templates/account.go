package templates

import (
	"context"
	"io"
)

// Files of the account pages.
const (
	accountFile      = "account.html"
	emailConfirmFile = "account_email_confirm.html"
)

// AccountSession is one line of the account page's list of sign-in sessions.
type AccountSession struct {
	// ID is the session's store id (a keyed hash, not the cookie's token): the value the
	// "Sign out" button posts.
	ID        string
	Device    string // "Chrome on macOS"
	Address   string
	LastSeen  string
	CreatedAt string
	// Current marks the session of the browser looking at the page.
	Current bool
}

// AccountApp is one application holding a grant of the member at the school.
type AccountApp struct {
	ClientID  string
	Name      string
	Scopes    []ScopeItem
	GrantedAt string
	LastUsed  string
}

// AccountEvent is one line of the member's recent sign-ins and security events.
type AccountEvent struct {
	At      string
	What    string // the event in words
	Detail  string // e.g. the application removed; "" when there is none
	Device  string
	Address string
}

// AccountPage is the member's account page. Every form posts csrf_token; the profile form
// posts name and picture to /account/profile, the password form current_password,
// new_password, repeat_password and sign_out_apps ("yes" when checked) to /account/password,
// the e-mail form email and current_password to /account/email; the session forms post
// session_id to /account/sessions/end or nothing to /account/sessions/end-others, and the
// application form client_id to /account/apps/remove.
type AccountPage struct {
	School      string
	MemberName  string
	MemberEmail string
	// PictureURL is the member's picture address; ShowPicture is set when the page may load it
	// as an image (https), otherwise the address is shown as text.
	PictureURL  string
	ShowPicture bool
	CSRFToken   string
	// Notice is a fixed sentence about what the last form did; Message a sentence about a form
	// that could not be used (an expired form).
	Notice, Message string
	// Name and Picture refill the profile form; the *Message fields say why a form was
	// refused, next to it.
	Name, Picture                                  string
	ProfileMessage, PasswordMessage, EmailMessage  string
	SessionsMessage                                string
	MaxName, MaxPicture, MaxEmail, MinPasswordRune int
	Sessions                                       []AccountSession
	Apps                                           []AccountApp
	Events                                         []AccountEvent
}

// EmailConfirmPage asks the signed-in member to confirm the new address a link was sent to.
// Its form posts token and csrf_token to /account/email/confirm.
type EmailConfirmPage struct {
	School      string
	MemberName  string
	MemberEmail string
	NewEmail    string
	Token       string
	CSRFToken   string
	Message     string
}

// accountPages are the pages of /account.
func accountPages() []namedPage {
	return []namedPage{
		{accountFile, AccountPage{
			School: "S", MemberName: "N", MemberEmail: "e@example.com", PictureURL: "https://p.example/a.png", ShowPicture: true,
			CSRFToken: "t", Notice: "n", Message: "m", Name: "N", Picture: "https://p.example/a.png",
			ProfileMessage: "p", PasswordMessage: "p", EmailMessage: "e", SessionsMessage: "s",
			MaxName: 100, MaxPicture: 2048, MaxEmail: 254, MinPasswordRune: 8,
			Sessions: []AccountSession{{ID: "x", Device: "d", Address: "a", LastSeen: "l", CreatedAt: "c", Current: true}, {ID: "y"}},
			Apps:     []AccountApp{{ClientID: "c", Name: "A", Scopes: []ScopeItem{{"openid", "d"}}, GrantedAt: "g", LastUsed: "l"}},
			Events:   []AccountEvent{{At: "a", What: "w", Detail: "d", Device: "d", Address: "a"}},
		}},
		{emailConfirmFile, EmailConfirmPage{School: "S", MemberName: "N", MemberEmail: "e@example.com", NewEmail: "n@example.com",
			Token: "t", CSRFToken: "t", Message: "m"}},
	}
}

// Account renders the member's account page.
func (s *Set) Account(ctx context.Context, w io.Writer, v AccountPage) error {
	return s.renderNamed(ctx, w, accountFile, v)
}

// EmailConfirm renders the confirmation of a new e-mail address.
func (s *Set) EmailConfirm(ctx context.Context, w io.Writer, v EmailConfirmPage) error {
	return s.renderNamed(ctx, w, emailConfirmFile, v)
}
