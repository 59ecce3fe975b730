package templates

import (
	"context"
	_ "embed"
	"io"

	"github.com/proctorhq/proctor/endpoint"
)

// The passkey pages are the only pages that load a script: WebAuthn is a browser API with no
// form to post. The script is a static file served like the stylesheet (its name carries a
// hash of its content); it reads what it needs from the page's data- attributes and talks to
// same-origin JSON endpoints, so the pages need no inline script.

//go:embed static/passkey.js
var passkeyScript []byte

// scriptPath is the script's path, its name carrying a hash of its content.
var scriptPath = endpoint.Assets + endpoint.AssetName("passkey-", passkeyScript, ".js")

// ScriptPath is the path of the passkey pages' script.
func (s *Set) ScriptPath() string { return scriptPath }

// Asset returns the static asset served at path (the stylesheet or the script) and its
// content type. The content must not be modified.
func (s *Set) Asset(path string) (content []byte, contentType string, ok bool) {
	switch path {
	case s.cssPath:
		return stylesheet, "text/css; charset=utf-8", true
	case scriptPath:
		return passkeyScript, "text/javascript; charset=utf-8", true
	}
	return nil, "", false
}

// PasskeyItem is one line of the member's list of passkeys.
type PasskeyItem struct {
	ID   int64
	Name string
	// Kind says whether it is synced between devices or bound to one.
	Kind      string
	CreatedAt string
	LastUsed  string
}

// PasskeysPage is the member's list of passkeys at /account/passkeys. The add button's script
// posts csrf_token to BeginURL, then csrf_token, name and response (the browser's credential as
// JSON) to FinishURL. The rename form posts csrf_token, id and name to RenameURL; the remove
// form csrf_token, id and, when NeedPassword, current_password to RemoveURL.
type PasskeysPage struct {
	School      string
	MemberName  string
	MemberEmail string
	CSRFToken   string
	// Available is false at a school reached by an IP address, which cannot be a relying party.
	Available bool
	// NeedPassword asks for the current password to remove a passkey (no fresh second factor).
	NeedPassword                              bool
	Passkeys                                  []PasskeyItem
	Notice, Message                           string
	MaxName                                   int
	BeginURL, FinishURL, RenameURL, RemoveURL string
}

// PasskeySignInPage is a sign-in with a passkey: passwordless at /login/passkey, or the second
// step after a password (/login/factor/passkey). Its button's script posts csrf_token,
// return_to and step_up to BeginURL, then the same and response to FinishURL, and follows the
// redirect the answer names.
type PasskeySignInPage struct {
	School    string
	CSRFToken string
	ReturnTo  string
	// StepUp marks the second step of a signed-in member asked again (posted as step_up=1).
	StepUp    bool
	Available bool
	BeginURL  string
	FinishURL string
	// PasswordURL is the other way in (the sign-in form, or the second step's own page).
	PasswordURL string
}

// passkeyPages are the passkey pages.
func passkeyPages() []namedPage {
	return []namedPage{
		{"passkeys.html", PasskeysPage{School: "S", MemberName: "N", MemberEmail: "e@example.com", CSRFToken: "t", Available: true,
			NeedPassword: true, Notice: "n", Message: "m", MaxName: 64, BeginURL: "/b", FinishURL: "/f", RenameURL: "/r", RemoveURL: "/d",
			Passkeys: []PasskeyItem{{ID: 1, Name: "Laptop", Kind: "Synced", CreatedAt: "c", LastUsed: "l"}, {ID: 2}}}},
		{"passkey_login.html", PasskeySignInPage{School: "S", CSRFToken: "t", ReturnTo: "/x?y=z", Available: true, StepUp: true,
			BeginURL: "/b", FinishURL: "/f", PasswordURL: "/login"}},
	}
}

// Passkeys renders the member's list of passkeys.
func (s *Set) Passkeys(ctx context.Context, w io.Writer, v PasskeysPage) error {
	return s.renderNamed(ctx, w, "passkeys.html", v)
}

// PasskeySignIn renders a sign-in with a passkey.
func (s *Set) PasskeySignIn(ctx context.Context, w io.Writer, v PasskeySignInPage) error {
	return s.renderNamed(ctx, w, "passkey_login.html", v)
}
