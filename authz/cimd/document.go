package cimd

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/proctorhq/proctor/client"
	"github.com/proctorhq/proctor/scope"
)

// Why a client_id or its document cannot be used. Resolve wraps them in an *authz.ClientError
// whose description (see describe) the member sees.
var (
	ErrInvalidURL       = errors.New("cimd: client_id is not a valid metadata document URL")
	ErrFetch            = errors.New("cimd: document could not be fetched")
	ErrRedirected       = errors.New("cimd: document URL answered with a redirect")
	ErrStatus           = errors.New("cimd: document URL did not answer 200")
	ErrContentType      = errors.New("cimd: document is not served as application/json")
	ErrTooLarge         = errors.New("cimd: document is larger than the limit")
	ErrInvalidDocument  = errors.New("cimd: invalid document")
	ErrClientIDMismatch = errors.New("cimd: document's client_id differs from its URL")
	ErrSharedSecret     = errors.New("cimd: document uses a shared secret")
	ErrAuthMethod       = errors.New("cimd: unsupported token_endpoint_auth_method")
	ErrRedirectURI      = errors.New("cimd: redirect URI outside the document's host")
)

// descriptions are what describe says, in order: the first error that matches wins.
var descriptions = []struct {
	err  error
	text string
}{
	{ErrInvalidURL, "The client_id is not a valid Client ID Metadata Document URL."},
	{ErrTooLarge, "The client's metadata document is too large."},
	{ErrContentType, "The client's metadata document is not served as JSON."},
	{ErrClientIDMismatch, "The client's metadata document does not list this client_id."},
	{ErrSharedSecret, "The client's metadata document uses a client secret, which a metadata document cannot carry."},
	{ErrAuthMethod, "The client's metadata document asks for a client authentication method this server does not support."},
	{ErrRedirectURI, "The client's metadata document lists a redirect URI outside its own host."},
	{ErrInvalidDocument, "The client's metadata document is invalid."},
	{ErrFetchLimited, "Too many client metadata documents are being fetched right now. Try again in a minute."},
}

// describe words an error of this package for the member's error page; an error no
// description matches is a failed fetch.
func describe(err error) string {
	for _, d := range descriptions {
		if errors.Is(err, d.err) {
			return d.text
		}
	}
	return "The client's metadata document could not be fetched."
}

// maxURLLength bounds a client_id URL: it is shown to members and used as a cache key.
const maxURLLength = 2048

// ParseClientID checks a Client Identifier URL against the draft's section 3: the https
// scheme, a host, a path, no userinfo, no fragment and no "." or ".." path segments. A query
// is allowed (the draft only discourages it) and so is a port. A path of "/" is refused: the
// draft advises against it because the document would be the root of the client's site, and
// such a client_id is far more likely a mistake than a deliberate choice.
func ParseClientID(id string) (*url.URL, error) {
	if len(id) > maxURLLength {
		return nil, fmt.Errorf("%w: longer than %d bytes", ErrInvalidURL, maxURLLength)
	}
	if strings.Contains(id, "#") {
		return nil, fmt.Errorf("%w: it has a fragment", ErrInvalidURL)
	}
	// Only the characters RFC 3986 allows in a URI (Go's parser is more lenient): a client_id
	// is compared as a string, so it must have one spelling.
	if i := strings.IndexFunc(id, func(r rune) bool {
		return r <= ' ' || r >= 0x7f || strings.ContainsRune("\"<>\\^`{|}", r)
	}); i >= 0 {
		return nil, fmt.Errorf("%w: character %q is not allowed in a URI", ErrInvalidURL, id[i])
	}
	u, err := url.Parse(id)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidURL, err)
	}
	switch {
	case !strings.HasPrefix(id, "https://") || u.Scheme != "https":
		return nil, fmt.Errorf("%w: not an https URL", ErrInvalidURL)
	case u.Opaque != "" || u.Host == "" || u.Hostname() == "":
		return nil, fmt.Errorf("%w: no host", ErrInvalidURL)
	case u.User != nil || strings.Contains(u.Host, "@"):
		return nil, fmt.Errorf("%w: it has userinfo", ErrInvalidURL)
	case u.EscapedPath() == "" || u.EscapedPath() == "/":
		return nil, fmt.Errorf("%w: it has no path", ErrInvalidURL)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("%w: bad port %q", ErrInvalidURL, p)
		}
	}
	// Both the decoded and the escaped path are checked, so "%2e%2e" is caught as well.
	for _, path := range []string{u.Path, u.EscapedPath()} {
		for _, seg := range strings.Split(path, "/") {
			if seg == "." || seg == ".." {
				return nil, fmt.Errorf("%w: it has dot segments", ErrInvalidURL)
			}
		}
	}
	return u, nil
}

// Document is a validated Client ID Metadata Document: the fields this server uses.
type Document struct {
	ClientID     string
	ClientName   string
	RedirectURIs []string
	// ApplicationType is "web" (the RFC 7591 default) or "native".
	ApplicationType string
	// Scope is the document's scope list (RFC 7591 section 2), which narrows what the client
	// may be granted; nil when the document has none.
	Scope []string
}

// privateJWKMembers are the JWK members that only private or symmetric keys have (RFC 7518
// section 6).
var privateJWKMembers = []string{"d", "p", "q", "dp", "dq", "qi", "oth", "k"}

// ParseDocument parses and validates the body of the document fetched from clientID. Keys are
// matched exactly (JSON member names are case-sensitive) and unknown members are ignored, as
// RFC 7591 section 2 asks of metadata consumers.
func ParseDocument(clientID string, body []byte) (Document, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil || members == nil {
		return Document{}, fmt.Errorf("%w: not a JSON object", ErrInvalidDocument)
	}
	field := func(name string, v any) error {
		raw, ok := members[name]
		if !ok {
			return nil
		}
		if err := json.Unmarshal(raw, v); err != nil {
			return fmt.Errorf("%w: %s has the wrong type", ErrInvalidDocument, name)
		}
		return nil
	}
	var (
		id, name, appType  string
		redirects          []string
		method, scopeField *string
		grants, respTypes  []string
		jwks               json.RawMessage
	)
	for _, err := range []error{
		field("client_id", &id), field("client_name", &name), field("application_type", &appType),
		field("redirect_uris", &redirects), field("token_endpoint_auth_method", &method),
		field("scope", &scopeField), field("grant_types", &grants), field("response_types", &respTypes),
		field("jwks", &jwks),
	} {
		if err != nil {
			return Document{}, err
		}
	}

	// Draft section 4: the document's client_id MUST equal the URL it was fetched from, by
	// simple string comparison.
	if id != clientID {
		return Document{}, fmt.Errorf("%w: document says %q", ErrClientIDMismatch, id)
	}
	u, err := ParseClientID(clientID)
	if err != nil {
		return Document{}, err
	}

	// Draft section 4.1: no shared secret can exist for such a client.
	for _, k := range []string{"client_secret", "client_secret_expires_at"} {
		if _, ok := members[k]; ok {
			return Document{}, fmt.Errorf("%w: it has %s", ErrSharedSecret, k)
		}
	}
	if method != nil && *method != "none" {
		if strings.HasPrefix(*method, "client_secret") {
			return Document{}, fmt.Errorf("%w: token_endpoint_auth_method %q", ErrSharedSecret, *method)
		}
		// Every client here is public (PKCE); private_key_jwt is not offered.
		return Document{}, fmt.Errorf("%w: %q", ErrAuthMethod, *method)
	}
	if err := checkJWKS(jwks); err != nil {
		return Document{}, err
	}

	// The name is shown on the consent page: the rule every client name follows (operator
	// pages, CLI) applies here too.
	name = strings.TrimSpace(name)
	if err := client.CheckName(name); err != nil {
		return Document{}, fmt.Errorf("%w: client_name: %w", ErrInvalidDocument, err)
	}
	if len(redirects) == 0 {
		return Document{}, fmt.Errorf("%w: redirect_uris is missing", ErrInvalidDocument)
	}
	for _, r := range redirects {
		if err := checkRedirectURI(r, u.Hostname()); err != nil {
			return Document{}, err
		}
	}
	switch appType {
	case "":
		appType = "web"
	case "web", "native":
	default:
		return Document{}, fmt.Errorf("%w: application_type %q", ErrInvalidDocument, appType)
	}
	// Only the authorization code flow is served: a document must allow it (RFC 7591 section
	// 2 defaults both lists to exactly that flow). Other listed types are never granted.
	if grants != nil && !slices.Contains(grants, "authorization_code") {
		return Document{}, fmt.Errorf("%w: grant_types lacks authorization_code", ErrInvalidDocument)
	}
	if respTypes != nil && !slices.Contains(respTypes, "code") {
		return Document{}, fmt.Errorf("%w: response_types lacks code", ErrInvalidDocument)
	}
	doc := Document{ClientID: id, ClientName: name, RedirectURIs: redirects, ApplicationType: appType}
	if scopeField != nil && strings.TrimSpace(*scopeField) != "" {
		list, ok := scope.Parse(*scopeField)
		if !ok {
			return Document{}, fmt.Errorf("%w: scope has characters outside RFC 6749 section 3.3", ErrInvalidDocument)
		}
		doc.Scope = list
	}
	return doc, nil
}

// checkRedirectURI applies the school's rule for document clients (spec, Registration rule 4;
// draft section 8.1 lets the server relate redirect URIs to the client_id): an https URI on
// the document's own host, or a loopback URI for a native app (RFC 8252 section 7.3; any port
// is accepted at the authorization endpoint). Fragments are refused (RFC 6749 section
// 3.1.2).
func checkRedirectURI(raw, docHost string) error {
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Opaque != "" || u.User != nil || u.Host == "" || strings.Contains(raw, "#") {
		return fmt.Errorf("%w: redirect URI %q is not an absolute URI without a fragment", ErrInvalidDocument, raw)
	}
	switch {
	case u.Scheme == "https" && strings.EqualFold(u.Hostname(), docHost):
		return nil
	case u.Scheme == "http" && (u.Hostname() == "127.0.0.1" || u.Hostname() == "::1"):
		return nil
	}
	return fmt.Errorf("%w: %q", ErrRedirectURI, raw)
}

// checkJWKS refuses private key material (draft section 4.1: only public keys may be
// published). The keys themselves are not used: no client authenticates with one here.
func checkJWKS(raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var set struct {
		Keys []map[string]json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(raw, &set); err != nil {
		return fmt.Errorf("%w: jwks is not a JWK set", ErrInvalidDocument)
	}
	for _, k := range set.Keys {
		for _, m := range privateJWKMembers {
			if _, ok := k[m]; ok {
				return fmt.Errorf("%w: jwks holds private key material", ErrInvalidDocument)
			}
		}
	}
	return nil
}
