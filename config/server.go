package config

import (
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"time"
	"unicode"

	"github.com/redis/go-redis/v9"
)

// Server is the server file.
type Server struct {
	// File is the path the server file was read from ("" when only defaults and environment
	// were used).
	File string `mapstructure:"-"`

	Public   Listener `mapstructure:"public"`
	Internal Internal `mapstructure:"internal"`
	Database Database `mapstructure:"database"`
	// SchoolsDir holds one YAML file per school; relative paths are relative to the working
	// directory.
	SchoolsDir string `mapstructure:"schools_dir"`
	// LegacySchoolsDir is tenants_dir, the earlier name of schools_dir, still read so that
	// existing server files and PROCTOR_TENANTS_DIR keep working (see useLegacySchoolsDir).
	LegacySchoolsDir string `mapstructure:"tenants_dir"`
	// Secret is the system secret (keyed hashes of tokens and client secrets, encryption of
	// signing keys). Given inline (normally through PROCTOR_SECRET) or by SecretFile; base64 or
	// hex of at least 32 random bytes.
	Secret     Secret `mapstructure:"secret"`
	SecretFile string `mapstructure:"secret_file"`
	Log        Log    `mapstructure:"log"`
	// TrustedProxies are the CIDR ranges whose X-Forwarded-For, -Host and -Proto headers are
	// believed. Empty: those headers are ignored.
	TrustedProxies []string  `mapstructure:"trusted_proxies"`
	HTTP           HTTP      `mapstructure:"http"`
	MemberAPI      MemberAPI `mapstructure:"member_api"`
	// Integrations are the known vendor platforms of POST /api/oauth/register.
	Integrations []Integration `mapstructure:"integrations"`
	// ReviewedClients are Client ID Metadata Document URLs the deployment's operators have
	// reviewed: they may be granted every scope of their audience, not only reads.
	ReviewedClients []string `mapstructure:"reviewed_clients"`
	// Redis, when its URL is set, holds the login rate-limit counts, so that every replica
	// counts the same failures. Without it each process counts alone.
	Redis Redis `mapstructure:"redis"`
	// Login bounds what sign-ins may cost the server.
	Login Login `mapstructure:"login"`
	// Mail is the SMTP server e-mail goes through; without a host mail is off.
	Mail Mail `mapstructure:"mail"`
	// SecurityEvents governs the security event log (package audit).
	SecurityEvents SecurityEvents `mapstructure:"security_events"`
	// Telemetry exports traces (docs/tracing.md); off unless an OTLP endpoint is set.
	Telemetry Telemetry `mapstructure:"telemetry"`
}

// Telemetry says where traces go.
type Telemetry struct {
	// OTLPEndpoint is the base URL of an OTLP/HTTP collector (http://collector:4318): spans are
	// POSTed to its /v1/traces. Empty: no exporter runs and every tracing hook is a no-op.
	OTLPEndpoint string `mapstructure:"otlp_endpoint"`
}

// SecurityEvents governs the security event log.
type SecurityEvents struct {
	// Retention is how long an event is kept before the purge job deletes it: long enough to
	// look back over a school year's sign-ins and changes, short enough that members'
	// addresses and browsers are not kept for good.
	Retention time.Duration `mapstructure:"retention"`
}

// Bounds and default of security_events.retention.
const (
	DefaultSecurityEventRetention = 365 * 24 * time.Hour
	MinSecurityEventRetention     = 24 * time.Hour
	MaxSecurityEventRetention     = 10 * 365 * 24 * time.Hour
)

// Login bounds the password hashing of sign-ins. Each argon2id verification holds 64 MiB for
// its whole run, so HashConcurrency times 64 MiB is what a burst of sign-ins can hold at once.
type Login struct {
	// HashConcurrency is how many password hashes may run at once; 0 is half the processors Go
	// may use, at least 1 and at most 4 (login.DefaultHashSlots).
	HashConcurrency int `mapstructure:"hash_concurrency"`
	// HashWait is how long a sign-in waits for a hashing slot before it is answered 503 with
	// Retry-After; 0 is 5s (login.DefaultHashWait).
	HashWait time.Duration `mapstructure:"hash_wait"`
}

// Bounds of the login section.
const (
	MaxHashConcurrency = 64
	MaxHashWait        = 10 * time.Second
)

// Redis is where the login rate limiter keeps its counts.
type Redis struct {
	// URL is redis://[user:password@]host[:port][/db], or rediss:// for TLS. It may carry a
	// password, so it is held as a Secret and prints as [redacted].
	URL Secret `mapstructure:"url"`
	// KeyPrefix starts every key Proctor writes, keeping them apart from other applications'
	// keys in a shared Redis.
	KeyPrefix string `mapstructure:"key_prefix"`
}

// DefaultRedisKeyPrefix is redis.key_prefix when the file does not set it.
const DefaultRedisKeyPrefix = "proctor:login:"

// Listener is one HTTP listener.
type Listener struct {
	Addr string `mapstructure:"addr"`
}

// Internal is the internal listener (health, readiness, metrics, introspection).
type Internal struct {
	Addr string `mapstructure:"addr"`
	// APIKey authenticates callers of POST /internal/introspect (a Member API process running
	// on its own); without it the endpoint is off. At least 32 characters.
	APIKey Secret `mapstructure:"api_key"`
}

// MemberAPI configures `proctor serve --only member-api`: the Member API verifies tokens through
// the authorization server's introspection endpoint instead of reading token pairs itself.
type MemberAPI struct {
	IntrospectionURL string `mapstructure:"introspection_url"`
	APIKey           Secret `mapstructure:"api_key"`
}

// Database selects the backend. Driver "sqlite" takes a file path as DSN; "postgres" a URL or
// key=value connection string.
type Database struct {
	Driver       string `mapstructure:"driver"`
	DSN          string `mapstructure:"dsn"`
	MaxOpenConns int    `mapstructure:"max_open_conns"`
	// CurriculumCacheRows bounds the curricula each process keeps in memory, in rows (sections,
	// lectures, one per course): 0 is the store's default, a negative value keeps none.
	CurriculumCacheRows int `mapstructure:"curriculum_cache_rows"`
	// StartupTimeout is how long `proctor serve` keeps trying to reach the database when it
	// starts (with backoff, logging each attempt) before it gives up and exits; 0 tries once.
	// It is not libpq's connect_timeout, which bounds one connection attempt (set that in the
	// DSN).
	StartupTimeout time.Duration `mapstructure:"startup_timeout"`
}

// Log configures log/slog.
type Log struct {
	Level  string `mapstructure:"level"`  // debug, info, warn, error
	Format string `mapstructure:"format"` // json or text
}

// HTTP bounds what one request may cost the server.
type HTTP struct {
	ReadHeaderTimeout time.Duration `mapstructure:"read_header_timeout"`
	ReadTimeout       time.Duration `mapstructure:"read_timeout"`
	WriteTimeout      time.Duration `mapstructure:"write_timeout"`
	IdleTimeout       time.Duration `mapstructure:"idle_timeout"`
	ShutdownGrace     time.Duration `mapstructure:"shutdown_grace"`
	MaxBodyBytes      int64         `mapstructure:"max_body_bytes"`
}

// DefaultServer returns the server settings used when a key is not set anywhere.
func DefaultServer() Server {
	return Server{
		Public:     Listener{Addr: "127.0.0.1:8080"},
		Internal:   Internal{Addr: "127.0.0.1:8081"},
		Database:   Database{Driver: "sqlite", DSN: "var/proctor.db", StartupTimeout: 60 * time.Second},
		SchoolsDir: "schools",
		Log:        Log{Level: "info", Format: "json"},
		HTTP: HTTP{
			ReadHeaderTimeout: 5 * time.Second,
			ReadTimeout:       15 * time.Second,
			WriteTimeout:      30 * time.Second,
			IdleTimeout:       120 * time.Second,
			ShutdownGrace:     20 * time.Second,
			MaxBodyBytes:      1 << 20,
		},
		Redis:          Redis{KeyPrefix: DefaultRedisKeyPrefix},
		Mail:           Mail{Port: DefaultMailPort, TLS: MailTLSStartTLS, Timeout: DefaultMailTimeout},
		SecurityEvents: SecurityEvents{Retention: DefaultSecurityEventRetention},
		Telemetry:      Telemetry{},
	}
}

// Secret holds the system secret's bytes. It never prints: String, GoString, LogValue and
// MarshalText all redact it, so a stray log line or error cannot leak it.
type Secret []byte

const redacted = "[redacted]"

func (Secret) String() string               { return redacted }
func (Secret) GoString() string             { return redacted }
func (Secret) LogValue() slog.Value         { return slog.StringValue(redacted) }
func (Secret) MarshalText() ([]byte, error) { return []byte(redacted), nil }

// MinSecretBytes is the least entropy the system secret may carry.
const MinSecretBytes = 32

// DecodeSecret reads a secret written as base64 (standard or URL alphabet, padded or not) or
// hex, after trimming white space.
func DecodeSecret(s string) (Secret, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, errors.New("is empty")
	}
	var b []byte
	if h, err := hex.DecodeString(s); err == nil {
		b = h
	} else {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			if d, err := enc.DecodeString(s); err == nil {
				b = d
				break
			}
		}
	}
	if b == nil {
		return nil, errors.New("must be base64 or hex")
	}
	if len(b) < MinSecretBytes {
		return nil, errors.New("must decode to at least 32 bytes (generate one with: head -c 32 /dev/urandom | base64)")
	}
	return Secret(b), nil
}

// ParseTrustedProxies reads CIDR ranges and single addresses. It returns the ranges it could
// parse and the index of each entry it could not.
func ParseTrustedProxies(entries []string) ([]netip.Prefix, []int) {
	var prefixes []netip.Prefix
	var bad []int
	for i, r := range entries {
		r = strings.TrimSpace(r)
		p, err := netip.ParsePrefix(r)
		if err != nil {
			a, aerr := netip.ParseAddr(r)
			if aerr != nil {
				bad = append(bad, i)
				continue
			}
			p = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
		}
		prefixes = append(prefixes, p.Masked())
	}
	return prefixes, bad
}

// validate checks the server file.
func (s *Server) validate(c collector) {
	for _, l := range []struct {
		field string
		addr  string
	}{{"public.addr", s.Public.Addr}, {"internal.addr", s.Internal.Addr}} {
		if _, _, err := net.SplitHostPort(l.addr); err != nil {
			c.add(l.field, "must be host:port, got %q", l.addr)
		}
	}
	if s.Public.Addr == s.Internal.Addr && s.Public.Addr != "" {
		c.add("internal.addr", "must differ from public.addr (the internal listener is never public)")
	}
	switch s.Database.Driver {
	case "sqlite", "postgres":
	default:
		c.add("database.driver", "must be sqlite or postgres, got %q", s.Database.Driver)
	}
	if s.Database.DSN == "" {
		c.add("database.dsn", "is required")
	}
	if s.Database.MaxOpenConns < 0 {
		c.add("database.max_open_conns", "must not be negative")
	}
	if s.Database.StartupTimeout < 0 {
		c.add("database.startup_timeout", "must not be negative (0 tries once)")
	}
	if s.SchoolsDir == "" {
		c.add("schools_dir", "is required")
	}
	switch s.Log.Level {
	case "debug", "info", "warn", "error":
	default:
		c.add("log.level", "must be debug, info, warn or error, got %q", s.Log.Level)
	}
	switch s.Log.Format {
	case "json", "text":
	default:
		c.add("log.format", "must be json or text, got %q", s.Log.Format)
	}
	_, bad := ParseTrustedProxies(s.TrustedProxies)
	for _, i := range bad {
		c.add(fieldIndex("trusted_proxies", i), "must be a CIDR range or an address, got %q", s.TrustedProxies[i])
	}
	for _, d := range []struct {
		field string
		v     time.Duration
	}{
		{"http.read_header_timeout", s.HTTP.ReadHeaderTimeout},
		{"http.read_timeout", s.HTTP.ReadTimeout},
		{"http.write_timeout", s.HTTP.WriteTimeout},
		{"http.idle_timeout", s.HTTP.IdleTimeout},
		{"http.shutdown_grace", s.HTTP.ShutdownGrace},
	} {
		if d.v <= 0 {
			c.add(d.field, "must be a positive duration such as 15s")
		}
	}
	if s.HTTP.MaxBodyBytes < 1024 {
		c.add("http.max_body_bytes", "must be at least 1024")
	}
	s.validateIntegrations(c)
	if k := s.Internal.APIKey; len(k) > 0 && len(k) < 32 {
		c.add("internal.api_key", "must be at least 32 characters")
	}
	if u := s.MemberAPI.IntrospectionURL; u != "" {
		if p, err := url.Parse(u); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			c.add("member_api.introspection_url", "must be an http(s) URL, got %q", u)
		}
		if len(s.MemberAPI.APIKey) < 32 {
			c.add("member_api.api_key", "is required with member_api.introspection_url (at least 32 characters)")
		}
	}
	s.validateRedis(c)
	s.validateMail(c)
	if n := s.Login.HashConcurrency; n < 0 || n > MaxHashConcurrency {
		c.add("login.hash_concurrency", "must be between 0 (automatic) and %d, got %d", MaxHashConcurrency, n)
	}
	if d := s.Login.HashWait; d < 0 || d > MaxHashWait {
		c.add("login.hash_wait", "must be between 0 (the default, 5s) and %v, got %v", MaxHashWait, d)
	}
	if d := s.SecurityEvents.Retention; d < MinSecurityEventRetention || d > MaxSecurityEventRetention {
		c.add("security_events.retention", "must be between %v (a day) and %v (ten years), got %v", MinSecurityEventRetention, MaxSecurityEventRetention, d)
	}
	if u, err := url.Parse(s.Telemetry.OTLPEndpoint); s.Telemetry.OTLPEndpoint != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
		c.add("telemetry.otlp_endpoint", "must be an http(s) URL such as http://127.0.0.1:4318, got %q", s.Telemetry.OTLPEndpoint)
	}
}

// validateRedis checks the redis section when a URL is given. No message quotes the URL: it
// may hold a password.
func (s *Server) validateRedis(c collector) {
	if len(s.Redis.URL) == 0 {
		return
	}
	raw := string(s.Redis.URL)
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		c.add("redis.url", "must be a URL such as redis://127.0.0.1:6379/0 (the value is not shown: it may hold a password)")
	case u.Scheme != "redis" && u.Scheme != "rediss":
		c.add("redis.url", "must start with redis:// or rediss:// (TLS)")
	case u.Host == "":
		c.add("redis.url", "must name a host, as in redis://127.0.0.1:6379/0")
	default:
		// Once the URL has parsed, go-redis's messages name the path or query options only.
		if _, err := redis.ParseURL(raw); err != nil {
			c.add("redis.url", "%s", strings.TrimPrefix(err.Error(), "redis: "))
		}
	}
	p := s.Redis.KeyPrefix
	switch {
	case p == "":
		c.add("redis.key_prefix", "must not be empty (it keeps Proctor's keys apart from other applications' keys)")
	case len(p) > 64:
		c.add("redis.key_prefix", "must be at most 64 characters")
	case strings.IndexFunc(p, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0:
		c.add("redis.key_prefix", "must not contain spaces or control characters")
	}
}

// Derive returns a 32-byte key for one purpose (HKDF-SHA256 with the purpose as info), so that
// each use of the system secret (token HMACs, client-secret hashes ...) has a key of its own and
// a key leaked from one use says nothing about another.
func (s Secret) Derive(purpose string) []byte {
	key, err := hkdf.Key(sha256.New, s, nil, "proctor "+purpose, 32)
	if err != nil {
		// Only a requested length beyond 255*32 bytes fails.
		panic(err)
	}
	return key
}
