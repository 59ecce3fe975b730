package scope

import (
	"slices"
	"strings"
)

// Audience says which kind of client may hold a scope.
type Audience int

const (
	Identity Audience = iota // openid, profile, email: any client
	Member                   // account:*: member clients only
	Operator                 // the REST API scopes: operator clients only
)

// Scope is one catalogue entry.
type Scope struct {
	Name        string
	Description string // in English, for API documentation; pages show Describe's text
	Audience    Audience
}

// Names of the scopes code refers to directly.
const (
	OpenID       = "openid"
	Profile      = "profile"
	Email        = "email"
	AccountRead  = "account:read"
	AccountWrite = "account:write"
)

// catalogue is the spec's Scopes table, in its order.
var catalogue = []Scope{
	{OpenID, "Confirm who you are", Identity},
	{Profile, "See your name and picture", Identity},
	{Email, "See your e-mail address", Identity},
	{"courses:read", "See the school's courses", Operator},
	{"courses:write", "Create and change the school's courses", Operator},
	{"students:read", "See the school's students, their enrollments and progress", Operator},
	{"students:write", "Enroll and remove students", Operator},
	{"members:read", "See the school's members and their roles", Operator},
	{"members:write", "Change members' roles at the school", Operator},
	{"analytics:read", "See enrollment, completion and revenue figures", Operator},
	{"curriculum:read", "See course sections and lectures", Operator},
	{"curriculum:write", "Create and change course sections and lectures", Operator},
	{"orders:read", "See the school's payments", Operator},
	{"school:read", "See the school's settings", Operator},
	{"school:write", "Change the school's settings", Operator},
	{"appearance:read", "See the school's appearance", Operator},
	{"appearance:write", "Change the school's appearance", Operator},
	{"events:read", "See events and registrations", Operator},
	{"events:write", "Create and change events", Operator},
	{"membership_plans:read", "See membership plans", Operator},
	{"membership_plans:write", "Create and change membership plans", Operator},
	{"coupons:read", "See coupons", Operator},
	{"coupons:write", "Create and change coupons", Operator},
	{"posts:read", "See posts", Operator},
	{"posts:write", "Publish posts and notify members", Operator},
	{"subscriptions:read", "See subscriptions", Operator},
	{"subscriptions:write", "Change subscriptions", Operator},
	{"digital_products:read", "See digital products", Operator},
	{"digital_products:write", "Create and change digital products", Operator},
	{"comments:read", "See comments", Operator},
	{"lecturers:read", "See lecturers", Operator},
	{"lecturers:write", "Create and change lecturers", Operator},
	{"storage:write", "Upload files to the school's storage", Operator},
	{"forms:read", "See forms and their submissions", Operator},
	{"pages:read", "See pages", Operator},
	{"pages:write", "Create and change pages", Operator},
	{AccountRead, "See your own courses, progress, purchases and notifications at this school", Member},
	{AccountWrite, "Mark your notifications read and change your notification settings", Member},
}

var byName = func() map[string]Scope {
	m := make(map[string]Scope, len(catalogue))
	for _, s := range catalogue {
		m[s.Name] = s
	}
	return m
}()

// All returns the catalogue in the spec's order. The slice must not be modified.
func All() []Scope { return catalogue }

// Names returns every scope name in catalogue order (scopes_supported).
func Names() []string { return names(catalogue) }

// Lookup returns the catalogue entry for name.
func Lookup(name string) (Scope, bool) {
	s, ok := byName[name]
	return s, ok
}

// For returns the scopes of the given audiences, in catalogue order.
func For(audiences ...Audience) []Scope {
	var out []Scope
	for _, s := range catalogue {
		if slices.Contains(audiences, s.Audience) {
			out = append(out, s)
		}
	}
	return out
}

// NamesFor returns the names of the scopes of the given audiences, in catalogue order.
func NamesFor(audiences ...Audience) []string { return names(For(audiences...)) }

// names are the names of scopes, in their order.
func names(scopes []Scope) []string {
	out := make([]string, len(scopes))
	for i, s := range scopes {
		out[i] = s.Name
	}
	return out
}

// Parse splits a space-delimited scope parameter (RFC 6749 section 3.3) into distinct names,
// keeping their first order. It reports false when a token holds a character outside the RFC's
// scope-token set (control characters, tabs, quotes, backslashes, non-ASCII). Runs of spaces are
// tolerated, as most clients' joiners are sloppy and nothing is ambiguous about them.
func Parse(param string) ([]string, bool) {
	var out []string
	seen := map[string]bool{}
	for _, tok := range strings.Split(param, " ") {
		if tok == "" {
			continue
		}
		for i := 0; i < len(tok); i++ {
			c := tok[i]
			// scope-token = 1*( %x21 / %x23-5B / %x5D-7E )
			if c < 0x21 || c == 0x22 || c == 0x5c || c > 0x7e {
				return nil, false
			}
		}
		if !seen[tok] {
			seen[tok] = true
			out = append(out, tok)
		}
	}
	return out, true
}
