// Package templates will hold the embedded HTML templates and static assets of the login,
// consent, error and admin pages, parsed and checked at start-up. It has no code yet.
package templates
