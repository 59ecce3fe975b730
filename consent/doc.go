// Package consent will hold login, member sessions, the consent screen and CSRF protection,
// and the operator's admin pages for OAuth applications. It has no code yet.
package consent
