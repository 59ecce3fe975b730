package templates

import (
	"context"
	"html/template"
	"io"
)

// Files of the second-factor pages.
const (
	factorFile        = "login_factor.html"
	securityFile      = "account_security.html"
	totpEnrolFile     = "account_totp.html"
	recoveryCodesFile = "account_recovery_codes.html"
)

// FactorPage is the second sign-in step. Its code form posts csrf_token, return_to, step_up
// ("1" for a signed-in member asked again) and code to /login/factor.
//
// Passkey is set when the member has a passkey at the school: the page then has a section for
// it (the passkey step fills it), beside the code form when TOTP is also set.
type FactorPage struct {
	School    string
	CSRFToken string
	ReturnTo  string
	StepUp    bool
	Message   string
	TOTP      bool
	Passkey   bool
}

// SecurityPage lists the member's second factors at the school (/account/security). Its
// forms post csrf_token; removing TOTP and new recovery codes post current_password too
// (not needed when PasswordOptional: a second factor was entered in the last minutes).
type SecurityPage struct {
	School      string
	MemberName  string
	MemberEmail string
	CSRFToken   string
	Notice      string
	Message     string
	TOTP        bool
	// RecoveryCodesLeft counts unused recovery codes; Passkeys the member's passkeys.
	RecoveryCodesLeft int
	Passkeys          int
	Required          bool // the school requires a second factor of its operators, and this one is
	PasswordOptional  bool
}

// TOTPEnrolPage shows a new TOTP secret as a QR code (a data: URI of a PNG) and as text, and asks
// for a code from the app before it counts. Its form posts csrf_token, return_to and code to
// /account/security/totp.
type TOTPEnrolPage struct {
	School      string
	MemberName  string
	MemberEmail string
	CSRFToken   string
	ReturnTo    string
	Message     string
	// QRCode is a data:image/png;base64 URI the server made (template.URL: html/template
	// refuses data: URIs it cannot vouch for).
	QRCode   template.URL
	Secret   string // base32, grouped by four
	Required bool
}

// RecoveryCodesPage shows new recovery codes, once.
type RecoveryCodesPage struct {
	School      string
	MemberName  string
	MemberEmail string
	Codes       []string
	// Continue is where the member goes next (a return_to, or /account/security).
	Continue string
}

// mfaPages are the second-factor pages.
func mfaPages() []namedPage {
	return []namedPage{
		{factorFile, FactorPage{School: "S", CSRFToken: "t", ReturnTo: "/r", StepUp: true, Message: "m", TOTP: true, Passkey: true}},
		{securityFile, SecurityPage{School: "S", MemberName: "N", MemberEmail: "e@example.com", CSRFToken: "t", Notice: "n", Message: "m",
			TOTP: true, RecoveryCodesLeft: 3, Passkeys: 1, Required: true, PasswordOptional: true}},
		{totpEnrolFile, TOTPEnrolPage{School: "S", MemberName: "N", MemberEmail: "e@example.com", CSRFToken: "t", ReturnTo: "/r",
			Message: "m", QRCode: "data:image/png;base64,AA==", Secret: "ABCD EFGH", Required: true}},
		{recoveryCodesFile, RecoveryCodesPage{School: "S", MemberName: "N", MemberEmail: "e@example.com", Codes: []string{"abcde-fghij"}, Continue: "/r"}},
	}
}

// Factor renders the second sign-in step.
func (s *Set) Factor(ctx context.Context, w io.Writer, v FactorPage) error {
	return s.renderNamed(ctx, w, factorFile, v)
}

// Security renders the member's list of second factors.
func (s *Set) Security(ctx context.Context, w io.Writer, v SecurityPage) error {
	return s.renderNamed(ctx, w, securityFile, v)
}

// TOTPEnrol renders the TOTP enrolment page.
func (s *Set) TOTPEnrol(ctx context.Context, w io.Writer, v TOTPEnrolPage) error {
	return s.renderNamed(ctx, w, totpEnrolFile, v)
}

// RecoveryCodes renders new recovery codes.
func (s *Set) RecoveryCodes(ctx context.Context, w io.Writer, v RecoveryCodesPage) error {
	return s.renderNamed(ctx, w, recoveryCodesFile, v)
}
