package client

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/proctorhq/proctor/scope"
	"github.com/proctorhq/proctor/storage"
)

// Limits on a client an operator creates (the operator pages and `proctor clients create`).
const (
	// MaxName bounds the name the consent page shows, in characters.
	MaxName = 100
	// MaxRedirectURIs bounds how many redirect URIs one client may register.
	MaxRedirectURIs = 10
	// MaxRedirectURI bounds one redirect URI, in bytes: the authorization request repeats it,
	// and the whole request must stay well inside what browsers and proxies accept.
	MaxRedirectURI = 2000
)

// Fields of a Request, as named in a Problem.
const (
	FieldName         = "name"
	FieldRedirectURIs = "redirect_uris"
	FieldScopes       = "scopes"
)

// Request is what an operator asks for when creating a client. Both ways of creating one
// (the operator pages of package admin and the CLI) go through Manager.Create, which checks it
// with CheckRequest, so that a client is held to the same rules whichever way it was made.
type Request struct {
	Kind         storage.ClientKind
	Name         string
	RedirectURIs []string
	Scopes       []string
	// Confidential asks for a secret (client_secret_post); otherwise the client is public
	// (token_endpoint_auth_method none, PKCE only). Spec, Registration rule 6.
	Confidential bool
}

// Problem is one reason a Request is refused, in words fit for the operator.
type Problem struct {
	Field   string // FieldName, FieldRedirectURIs or FieldScopes
	Message string
	// Rule names the rule broken ("name_too_long"; "" for a problem without a name) and Values
	// its particulars ("Max", "N", "URI" ...), so that a page can say it in the reader's
	// language; Message is the English the CLI and the API show.
	Rule   string
	Values map[string]any
}

// ruleError is a broken rule: the English message, and the rule's name and values for Problem.
type ruleError struct {
	rule   string
	values map[string]any
	msg    string
}

func (e *ruleError) Error() string { return e.msg }

// broken returns the error of a broken rule; format and args make its English message.
func broken(rule string, values map[string]any, format string, args ...any) error {
	return &ruleError{rule: rule, values: values, msg: fmt.Sprintf(format, args...)}
}

// RequestError lists every problem of a Request at once, so that a form can show
// them all next to their fields instead of one per attempt.
type RequestError struct {
	Problems []Problem
}

func (e *RequestError) Error() string {
	msgs := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		msgs[i] = p.Message
	}
	return "invalid client: " + strings.Join(msgs, "; ")
}

// For returns the messages about one field.
func (e *RequestError) For(field string) []string {
	var out []string
	for _, p := range e.Problems {
		if p.Field == field {
			out = append(out, p.Message)
		}
	}
	return out
}

// Scopes returns the catalogue entries a client of the kind may hold, in catalogue order:
// identity and account scopes for member clients, identity and operator scopes for operator
// clients (spec, Authentication 11: account:* is reserved to the member audience). It returns
// nil for an unknown kind.
func Scopes(kind storage.ClientKind) []scope.Scope {
	var audience scope.Audience
	switch kind {
	case storage.ClientMember:
		audience = scope.Member
	case storage.ClientOperator:
		audience = scope.Operator
	default:
		return nil
	}
	return scope.For(scope.Identity, audience)
}

// CheckScopes checks that names holds at least one scope and only scopes a client of the
// kind may hold. It returns them without duplicates, in catalogue order, so that a stored
// client reads the same however its scopes were picked.
func CheckScopes(kind storage.ClientKind, names []string) ([]string, error) {
	allowed := Scopes(kind)
	if allowed == nil {
		return nil, fmt.Errorf("the client kind must be %s or %s, not %q", storage.ClientMember, storage.ClientOperator, kind)
	}
	var bad []string
	for _, n := range names {
		if !slices.ContainsFunc(allowed, func(s scope.Scope) bool { return s.Name == n }) && !slices.Contains(bad, n) {
			bad = append(bad, n)
		}
	}
	if len(bad) > 0 {
		quoted := make([]string, len(bad))
		for i, b := range bad {
			quoted[i] = fmt.Sprintf("%q", b)
		}
		return nil, broken("scopes_unavailable", map[string]any{"Kind": string(kind), "Scopes": strings.Join(quoted, ", ")},
			"not available to a %s client: %s", kind, strings.Join(quoted, ", "))
	}
	var out []string
	for _, s := range allowed {
		if slices.Contains(names, s.Name) {
			out = append(out, s.Name)
		}
	}
	if len(out) == 0 {
		return nil, broken("scopes_missing", nil, "pick at least one scope")
	}
	return out, nil
}

// CheckRedirectURI accepts an absolute https URI, or an http URI on the loopback addresses
// 127.0.0.1 and [::1] (RFC 8252 section 7.3: a native app listens there on a port of its
// choosing, and the port is not matched). Fragments are refused (RFC 6749 section 3.1.2), and
// so is user info, which would only serve to disguise the host on the consent page. "localhost"
// is refused as a plain-http host: it is a name, and RFC 8252 section 8.3 advises against
// relying on it resolving to the loopback interface.
func CheckRedirectURI(raw string) error {
	if len(raw) > MaxRedirectURI {
		return broken("uri_too_long", map[string]any{"Max": MaxRedirectURI}, "a redirect URI may be at most %d characters long", MaxRedirectURI)
	}
	quoted := uriValues(raw)
	u, err := url.Parse(raw)
	switch {
	case err != nil || !u.IsAbs():
		return broken("uri_not_absolute", quoted, "redirect URI %q is not an absolute URL", raw)
	case u.Scheme != "https" && u.Scheme != "http":
		// Private-use schemes (com.example.app:/cb) would need their own rules (RFC 8252
		// section 7.1); loopback serves native apps instead.
		return broken("uri_scheme", quoted, "redirect URI %q must use https (or http on 127.0.0.1 or [::1])", raw)
	case u.Host == "" || u.Opaque != "":
		return broken("uri_not_absolute", quoted, "redirect URI %q is not an absolute URL", raw)
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return broken("uri_fragment", quoted, "redirect URI %q must not have a fragment", raw)
	case u.User != nil:
		return broken("uri_user", quoted, "redirect URI %q must not contain a user name or password", raw)
	case u.Scheme == "http":
		// Exactly these two spellings: every other form of a loopback address (127.0.0.2,
		// [::ffff:127.0.0.1], [0:0::1]) is one more thing for a redirect-URI matcher to get wrong.
		if h := u.Hostname(); h != "127.0.0.1" && h != "::1" {
			return broken("uri_http_host", quoted, "redirect URI %q: plain http is only allowed for 127.0.0.1 and [::1]", raw)
		}
	}
	return nil
}

// CheckRedirectURIs checks that there are 1 to MaxRedirectURIs distinct URIs and that each
// passes CheckRedirectURI. It reports every problem, joined.
func CheckRedirectURIs(uris []string) error {
	var errs []error
	switch {
	case len(uris) == 0:
		return broken("uris_missing", nil, "give at least one redirect URI")
	case len(uris) > MaxRedirectURIs:
		errs = append(errs, broken("uris_too_many", map[string]any{"Max": MaxRedirectURIs, "N": len(uris)},
			"give at most %d redirect URIs, not %d", MaxRedirectURIs, len(uris)))
	}
	for i, u := range uris {
		if slices.Contains(uris[:i], u) {
			errs = append(errs, broken("uri_duplicate", uriValues(u), "redirect URI %q is listed twice", u))
			continue
		}
		if err := CheckRedirectURI(u); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// uriValues are the values of a rule about one redirect URI: the URI, quoted as the English
// message quotes it.
func uriValues(uri string) map[string]any {
	return map[string]any{"URI": fmt.Sprintf("%q", uri)}
}

// CheckName accepts 1 to MaxName characters of visible text. The name is what
// members see on the consent page ("Allow <name> to use your account?"), so every character
// must be one a reader can see: letters, marks, digits, punctuation, symbols and spaces
// (unicode.IsGraphic). That refuses control characters, which break lines; format characters
// (Unicode category Cf), among them the bidirectional overrides that reorder what is shown
// (U+202E turns "Good\u202eppA" into "GoodApp") and the zero-width characters that hide text or
// make two names look alike; line and paragraph separators; private-use, surrogate and
// unassigned code points; and the invisible fillers Unicode lists as default-ignorable.
// Variation selectors stay allowed: they only choose how a character is drawn. Every client
// name (the operator pages, the CLI, the operator API and Client ID Metadata Documents) goes
// through this one function.
func CheckName(name string) error {
	if strings.TrimSpace(name) == "" {
		return broken("name_missing", nil, "give the application a name")
	}
	if !utf8.ValidString(name) {
		return broken("name_invalid_text", nil, "the name is not valid text")
	}
	if n := utf8.RuneCountInString(name); n > MaxName {
		return broken("name_too_long", map[string]any{"Max": MaxName, "N": n}, "the name may be at most %d characters long, not %d", MaxName, n)
	}
	for _, r := range name {
		if !unicode.IsGraphic(r) || unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) {
			return broken("name_invisible", map[string]any{"Char": fmt.Sprintf("U+%04X", r)},
				"the name must not contain invisible or control characters (U+%04X)", r)
		}
	}
	return nil
}

// CheckRequest checks every field of req and returns it normalised: the name trimmed,
// redirect URIs trimmed of surrounding space, scopes in catalogue order. Any problem is
// reported in a *RequestError holding all of them.
func CheckRequest(req Request) (Request, error) {
	var problems []Problem
	add := func(field string, err error) {
		for _, e := range splitJoined(err) {
			p := Problem{Field: field, Message: e.Error()}
			var re *ruleError
			if errors.As(e, &re) {
				p.Rule, p.Values = re.rule, re.values
			}
			problems = append(problems, p)
		}
	}
	req.Name = strings.TrimSpace(req.Name)
	if err := CheckName(req.Name); err != nil {
		add(FieldName, err)
	}
	uris := make([]string, 0, len(req.RedirectURIs))
	for _, u := range req.RedirectURIs {
		uris = append(uris, strings.TrimSpace(u))
	}
	req.RedirectURIs = uris
	if err := CheckRedirectURIs(uris); err != nil {
		add(FieldRedirectURIs, err)
	}
	scopes, err := CheckScopes(req.Kind, req.Scopes)
	if err != nil {
		add(FieldScopes, err)
	}
	req.Scopes = scopes
	if len(problems) > 0 {
		return req, &RequestError{Problems: problems}
	}
	return req, nil
}

// splitJoined undoes errors.Join, so that each problem is a message of its own.
func splitJoined(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// applicationType is "native" for a client whose every redirect URI is a loopback address (it
// runs on the member's machine; OpenID Connect Registration section 2) and "web" otherwise.
func applicationType(uris []string) string {
	if LoopbackOnly(uris) {
		return "native"
	}
	return "web"
}

// LoopbackOnly reports whether every redirect URI of a client is a loopback address: such a
// client runs on the member's own machine, and the consent page says so.
func LoopbackOnly(uris []string) bool {
	for _, raw := range uris {
		u, err := url.Parse(raw)
		if err != nil || u.Scheme != "http" {
			return false
		}
		if ip := net.ParseIP(u.Hostname()); ip == nil || !ip.IsLoopback() {
			return false
		}
	}
	return len(uris) > 0
}

// EventDetail is the note of a client_created event in the security event log: the
// client's kind and whether it holds a secret ("member, confidential"), never the secret.
func EventDetail(c storage.Client) string {
	if c.TokenEndpointAuthMethod == storage.AuthMethodSecretPost {
		return string(c.Kind) + ", confidential"
	}
	return string(c.Kind) + ", public"
}
