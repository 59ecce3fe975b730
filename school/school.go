package school

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"time"

	"github.com/proctorhq/proctor/config"
)

// ErrNoSchool is returned when a context carries no school.
var ErrNoSchool = errors.New("school: no school in context")

// School is the runtime view of one school's configuration. It is immutable once built and
// shared by every request of that school.
type School struct {
	SchoolID  int64
	Subdomain string
	Name      string
	// Origin is base_url normalised: scheme://host[:port] with no trailing slash. It is the
	// issuer, the protected resource and the prefix of every URL the school advertises.
	Origin string
	// Host is the lower-case host[:port] key that requests are matched on (default port
	// omitted).
	Host     string
	Features config.Features
	// Registration and CIMD are the school's client policies (packages authz, authz/cimd).
	Registration config.Registration
	CIMD         config.CIMD
	// Mail is the school's From address and name as its file gives them (config.SchoolMail
	// Resolve fills in the server's defaults).
	Mail config.SchoolMail
	// Security is the school's sign-in policy (security.operator_mfa).
	Security config.Security
	// Locale is the language of the school's pages for a browser that asks for none of ours;
	// Location the time zone they write dates in.
	Locale   string
	Location *time.Location

	AccessTokenLifetime       time.Duration
	RefreshTokenLifetime      time.Duration
	AuthorizationCodeLifetime time.Duration
}

// New builds a School from a validated school file.
func New(c config.School) (*School, error) {
	u, err := config.ParseBaseURL(c.BaseURL)
	if err != nil {
		return nil, err
	}
	loc, err := time.LoadLocation(c.TimeZone) // "" is UTC
	if err != nil {
		return nil, err
	}
	return &School{
		SchoolID:                  c.SchoolID,
		Subdomain:                 c.Subdomain,
		Name:                      c.Name,
		Origin:                    u.Scheme + "://" + u.Host,
		Host:                      config.HostKey(u.Scheme, u.Host),
		Features:                  c.Features,
		Registration:              c.Registration,
		CIMD:                      c.CIMD,
		Mail:                      c.Mail,
		Security:                  c.Security,
		Locale:                    c.Locale,
		Location:                  loc,
		AccessTokenLifetime:       c.Lifetimes.AccessToken,
		RefreshTokenLifetime:      c.Lifetimes.RefreshToken,
		AuthorizationCodeLifetime: c.Lifetimes.AuthorizationCode,
	}, nil
}

// HTTPS reports whether the school's base_url is https. Such a school is never served over
// plain http (package server redirects or refuses), and its cookies are always the "__Host-"
// ones (package login).
func (t *School) HTTPS() bool { return strings.HasPrefix(t.Origin, "https://") }

// URL returns the absolute URL of path on the school's origin.
func (t *School) URL(path string) string { return t.Origin + path }

// SameOrigin reports whether u is on the school's origin: an absolute URL whose scheme and
// host[:port] are the school's, compared as requests are matched to schools (config.HostKey:
// any case, the scheme's default port written or not, a trailing dot on a host without port).
// It is the one check behind an RFC 8707 resource (package authz), the token's audience
// binding (resource.BoundTo) and the Origin header of the MCP endpoint (resource/mcp).
//
// The path is left to the caller (a resource may name a path under the origin; an Origin
// header may not). User info, a query and a fragment are refused: none of the three accepts
// them (RFC 8707 section 2 forbids them in a resource, and an origin has none), and user info
// is how "https://school.example@evil.example" tries to look like the school. An input that is
// no URL at all, or a School built without a scheme in Origin, is simply false.
func (t *School) SameOrigin(u *url.URL) bool {
	if t == nil || u == nil || u.Host == "" || u.Opaque != "" || u.User != nil ||
		u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return false
	}
	scheme, _, ok := strings.Cut(t.Origin, "://")
	if !ok {
		return false
	}
	return strings.EqualFold(u.Scheme, scheme) && config.HostKey(scheme, u.Host) == t.Host
}

type contextKey struct{}

// NewContext returns a copy of ctx carrying t.
func NewContext(ctx context.Context, t *School) context.Context {
	return context.WithValue(ctx, contextKey{}, t)
}

// FromContext returns the school carried by ctx, or ErrNoSchool.
func FromContext(ctx context.Context) (*School, error) {
	t, ok := ctx.Value(contextKey{}).(*School)
	if !ok || t == nil {
		return nil, ErrNoSchool
	}
	return t, nil
}
