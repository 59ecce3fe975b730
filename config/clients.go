package config

import (
	"net/url"
	"strings"
	"time"
)

// Integration is a known vendor platform: POST /api/oauth/register answers a registration
// whose client_name matches Name with ClientID (spec, Registration rule 3). Integrations are
// configured once for the deployment; a school may narrow the list.
type Integration struct {
	// Name is matched against the registration's client_name, ignoring case and surrounding
	// space.
	Name     string `mapstructure:"name"`
	ClientID string `mapstructure:"client_id"`
	// Scopes are the operator (and identity) scopes the platform may be granted.
	Scopes []string `mapstructure:"scopes"`
	// RedirectURIs are the platform's callbacks: its fixed https callbacks (which is what makes
	// it a registered integration) and loopback URIs (http://127.0.0.1/path, any port) for its
	// local tools.
	RedirectURIs    []string `mapstructure:"redirect_uris"`
	ApplicationType string   `mapstructure:"application_type"`
}

// Named reports whether name names the integration: a school's list and a registration's
// client_name match Name ignoring case and surrounding space.
func (in Integration) Named(name string) bool {
	return strings.EqualFold(strings.TrimSpace(in.Name), strings.TrimSpace(name))
}

// Registration is a school's registration policy.
type Registration struct {
	// Integrations, when not empty, lists the names of the deployment's integrations this
	// school accepts; empty accepts them all.
	Integrations []string `mapstructure:"integrations"`
}

// CIMD is a school's policy for Client ID Metadata Documents.
type CIMD struct {
	// AllowedHosts are the hosts whose documents resolve.
	AllowedHosts []string `mapstructure:"allowed_hosts"`
	// Open resolves documents from any host (open registration).
	Open bool `mapstructure:"open"`
	// AllowPrivateNetworks lets documents be fetched from loopback and private addresses. For
	// development and tests only: it logs a warning at start-up.
	AllowPrivateNetworks bool `mapstructure:"allow_private_networks"`
	// CacheMin and CacheMax bound how long a fetched document is reused, whatever its HTTP
	// cache headers say.
	CacheMin time.Duration `mapstructure:"cache_min"`
	CacheMax time.Duration `mapstructure:"cache_max"`
}

// Enabled reports whether any document can resolve at this school.
func (c CIMD) Enabled() bool { return c.Open || len(c.AllowedHosts) > 0 }

// HostAllowed reports whether documents at host may resolve (case-insensitive).
func (c CIMD) HostAllowed(host string) bool {
	if c.Open {
		return true
	}
	for _, h := range c.AllowedHosts {
		if strings.EqualFold(h, host) {
			return true
		}
	}
	return false
}

// Defaults of the CIMD cache bounds.
const (
	DefaultCIMDCacheMin = time.Minute
	DefaultCIMDCacheMax = 24 * time.Hour
)

func (s *Server) validateIntegrations(c collector) {
	ids := map[string]bool{}
	names := map[string]bool{}
	for i, in := range s.Integrations {
		field := fieldIndex("integrations", i)
		name := strings.ToLower(strings.TrimSpace(in.Name))
		switch {
		case name == "":
			c.add(field+".name", "is required")
		case names[name]:
			c.add(field+".name", "%q is listed twice", in.Name)
		}
		names[name] = true
		switch {
		case in.ClientID == "":
			c.add(field+".client_id", "is required")
		case strings.HasPrefix(strings.ToLower(in.ClientID), "https://"):
			c.add(field+".client_id", "must not be a URL (URLs are Client ID Metadata Documents)")
		case ids[in.ClientID]:
			c.add(field+".client_id", "%q is used twice", in.ClientID)
		}
		ids[in.ClientID] = true
		if len(in.RedirectURIs) == 0 {
			c.add(field+".redirect_uris", "is required")
		}
		for j, raw := range in.RedirectURIs {
			u, err := url.Parse(raw)
			if err != nil || !u.IsAbs() || u.Host == "" || u.Fragment != "" ||
				!(u.Scheme == "https" || u.Scheme == "http" && (u.Hostname() == "127.0.0.1" || u.Hostname() == "::1")) {
				c.add(fieldIndex(field+".redirect_uris", j), "must be an https URL or http://127.0.0.1/... or http://[::1]/..., got %q", raw)
			}
		}
		switch in.ApplicationType {
		case "", "web", "native":
		default:
			c.add(field+".application_type", "must be web or native")
		}
	}
}

func (t *School) validateClients(c collector, integrations []Integration) {
	if t.CIMD.CacheMin < 0 || t.CIMD.CacheMax < t.CIMD.CacheMin {
		c.add("cimd.cache_max", "must be at least cimd.cache_min")
	}
	for i, h := range t.CIMD.AllowedHosts {
		if h == "" || strings.ContainsAny(h, "/:@ ") {
			c.add(fieldIndex("cimd.allowed_hosts", i), "must be a host name, got %q", h)
		}
	}
	if integrations == nil {
		return
	}
	for i, name := range t.Registration.Integrations {
		found := false
		for _, in := range integrations {
			found = found || in.Named(name)
		}
		if !found {
			c.add(fieldIndex("registration.integrations", i), "%q is not an integration of the server file", name)
		}
	}
}
