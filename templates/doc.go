// Package templates holds the HTML pages of the sign-in and consent flow and of the operator's
// OAuth applications, and the one stylesheet they share, embedded in the binary.
//
// New parses every page once and renders each with sample data, so that a broken template or
// a field a page names but its view type lacks stops the server at start-up instead of
// answering a member with half a page. Each page has one render method taking its own view
// type (Login, Consent, Error, SignedIn, SignedOut, Logout; OAuthApps, OAuthAppNew, OAuthApp,
// OAuthAppSecret, OAuthAppConfirm for package login/admin; Forgot, ForgotSent, Reset,
// InvitationForm, LinkDead for package account's invitation and recovery pages); the pages escape everything
// through html/template and carry no scripts and no inline styles, so that a strict
// Content-Security-Policy (set by package login) applies.
//
// The stylesheet is served under a name that carries a hash of its content (StylesheetPath),
// so that it can be cached for a year and a new build still reaches every browser at once.
package templates
