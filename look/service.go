package look

import (
	"bytes"
	"context"
	"crypto/x509"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/netguard"
	"github.com/proctorhq/proctor/storage"
)

// Defaults of Options' zero fields.
const (
	// DefaultMaxLogoSize is the most of a logo that is read; a logo is a small image.
	DefaultMaxLogoSize = 512 << 10
	// DefaultConnectTimeout bounds connecting and the TLS handshake of a logo fetch, and
	// DefaultTimeout the whole fetch.
	DefaultConnectTimeout = 2 * time.Second
	DefaultTimeout        = 5 * time.Second
	// DefaultWait is how long a page waits for a logo fetch it started: long enough for a
	// logo on a working host, short enough that a slow host costs a page little. A page that
	// does not wait long enough shows the school's name; the fetch goes on, and the next page
	// shows the logo.
	DefaultWait = 300 * time.Millisecond
	// DefaultKeepFor is how long a fetched logo is used before it is fetched again (it keeps
	// being shown while that fetch runs), and DefaultRetryAfter how long a failed fetch is
	// remembered, so that a broken URL costs one fetch per while rather than one per page.
	DefaultKeepFor    = time.Hour
	DefaultRetryAfter = 5 * time.Minute
	// DefaultMaxEntries bounds the logos (and the stylesheets) held: at most about
	// DefaultMaxEntries × DefaultMaxLogoSize (64 MiB) of images.
	DefaultMaxEntries = 128
)

// Options tune a Service; the zero value is production's.
type Options struct {
	// AllowPrivateNetworks lets logo fetches reach loopback, RFC 1918 and IPv6 unique-local
	// addresses (netguard's private blocks). Off in production: a logo URL is chosen by a
	// school's operators and must not reach the deployment's inside. The tests and a local
	// development deployment turn it on. Logos are fetched over https only, always.
	AllowPrivateNetworks bool
	// RootCAs verifies logo hosts; nil uses the system roots (SSL_CERT_FILE honoured).
	RootCAs *x509.CertPool
	// Resolver looks host names up; nil uses net.DefaultResolver.
	Resolver netguard.Resolver
	// ConnectTimeout, Timeout: see DefaultConnectTimeout.
	ConnectTimeout time.Duration
	Timeout        time.Duration
	// Wait: see DefaultWait.
	Wait time.Duration
	// MaxLogoSize: see DefaultMaxLogoSize.
	MaxLogoSize int64
	// KeepFor, RetryAfter: see DefaultKeepFor.
	KeepFor    time.Duration
	RetryAfter time.Duration
	// MaxEntries: see DefaultMaxEntries.
	MaxEntries int
	// LogoFile reads the content of an image the context's school uploaded (its id is
	// storage.Appearance.LogoFileID) from the deployment's own storage; an id that is not an
	// image of that school is an error. Nil: uploaded logos are not shown.
	LogoFile LogoFileFunc
	// Now is the clock of the cache; nil is time.Now.
	Now    func() time.Time
	Logger *slog.Logger
}

// LogoFileFunc reads an uploaded logo's content by its file id, for the school in ctx.
type LogoFileFunc func(ctx context.Context, id int64) ([]byte, error)

// Look is what a page needs to wear its school's look.
type Look struct {
	// Theme is light, dark or auto (follow the member's system setting).
	Theme string
	// StylesheetPath is the school's stylesheet, to link after the base one; "" for no brand.
	StylesheetPath string
	// LogoPath is the school's logo on its own origin; "" when there is none (or not yet):
	// the page shows the school's name instead.
	LogoPath string
	// Brand is the school's colour on a light page ("#rrggbb"; "" for no brand): what an
	// e-mail, which links no stylesheet, shows.
	Brand string
}

// Service makes the Look of a school's appearance and serves the assets it names. It is safe
// for concurrent use and holds the assets of every school of the process, each under a name
// made of its content's hash.
type Service struct {
	client     *http.Client
	now        func() time.Time
	log        *slog.Logger
	timeout    time.Duration
	wait       time.Duration
	maxSize    int64
	keepFor    time.Duration
	retryAfter time.Duration
	maxEntries int
	logoFile   LogoFileFunc

	mu        sync.Mutex
	logos     map[string]*logoEntry // by source key (logoSource.key)
	logoNames map[string]*logoEntry // by asset name
	styles    map[string][]byte     // by asset name
}

// New returns a Service.
func New(o Options) *Service {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.ConnectTimeout, DefaultConnectTimeout)
	def(&o.Timeout, DefaultTimeout)
	def(&o.Wait, DefaultWait)
	def(&o.KeepFor, DefaultKeepFor)
	def(&o.RetryAfter, DefaultRetryAfter)
	if o.MaxLogoSize <= 0 {
		o.MaxLogoSize = DefaultMaxLogoSize
	}
	if o.MaxEntries <= 0 {
		o.MaxEntries = DefaultMaxEntries
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Service{
		client: newLogoClient(o), now: o.Now, log: o.Logger,
		timeout: o.Timeout, wait: o.Wait, maxSize: o.MaxLogoSize,
		keepFor: o.KeepFor, retryAfter: o.RetryAfter, maxEntries: o.MaxEntries, logoFile: o.LogoFile,
		logos: map[string]*logoEntry{}, logoNames: map[string]*logoEntry{}, styles: map[string][]byte{},
	}
}

// Look is the look of a school's pages with appearance a, for one page being drawn. It
// registers the school's stylesheet and starts (or uses) the logo's fetch, waiting for it at
// most Options.Wait; see Service.logo.
func (s *Service) Look(ctx context.Context, a storage.Appearance) Look {
	return s.look(ctx, a, s.wait)
}

func (s *Service) look(ctx context.Context, a storage.Appearance, wait time.Duration) Look {
	theme, _ := themeOf(a.Theme)
	p := PaletteOf(a)
	l := Look{Theme: theme, Brand: p.Brand}
	if css := CSS(p); css != nil {
		name := endpoint.AssetName("look-", css, ".css")
		s.mu.Lock()
		if _, ok := s.styles[name]; !ok {
			if len(s.styles) >= s.maxEntries {
				// Any will do: a dropped stylesheet is made again by the next page of its
				// school, or by ServeAsset from the school's appearance.
				for k := range s.styles {
					delete(s.styles, k)
					break
				}
			}
			s.styles[name] = css
		}
		s.mu.Unlock()
		l.StylesheetPath = endpoint.Assets + name
	}
	if src, ok := s.logoSource(ctx, a); ok {
		if src.local {
			// The school's own storage answers as fast as the page's other reads: the page
			// waits for it (up to the fetch timeout), so the first page shows the logo.
			wait = s.timeout
		}
		if name := s.logo(ctx, src, wait); name != "" {
			l.LogoPath = endpoint.Assets + name
		}
	}
	return l
}

// CurrentFunc returns the appearance of the school of a request (the school in ctx).
type CurrentFunc func(ctx context.Context) (storage.Appearance, error)

// ServeAsset serves r when its path is one of the look's assets (/assets/look-*.css,
// /assets/logo-*) and reports whether it was: false leaves r to the caller (the base
// stylesheet and the other static files share /assets/, and no file of theirs is named
// look-* or logo-*). An unknown name of the look's is a 404.
//
// A name this process does not hold (another replica drew the page, or the cache dropped it)
// is looked for again after making the look of the school's current appearance, from current
// (nil: not at all), waiting for the logo's fetch up to its timeout: the request is for the
// image itself, not a page. The name is the content's hash, so whatever is served under it is
// exactly what some appearance made; a school cannot be shown another's colours or logo except
// by having the same ones.
func (s *Service) ServeAsset(w http.ResponseWriter, r *http.Request, current CurrentFunc) bool {
	name, ok := strings.CutPrefix(r.URL.Path, endpoint.Assets)
	if !ok || !strings.HasPrefix(name, "look-") && !strings.HasPrefix(name, "logo-") {
		return false
	}
	if !isLookName(name) {
		http.NotFound(w, r)
		return true
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, http.StatusText(http.StatusMethodNotAllowed), http.StatusMethodNotAllowed)
		return true
	}
	body, ctype, found := s.asset(name)
	if !found && current != nil {
		if a, err := current(r.Context()); err == nil {
			// A stylesheet is made at once; only a request for the logo waits for its fetch.
			var wait time.Duration
			if strings.HasPrefix(name, "logo-") {
				wait = s.timeout
			}
			s.look(r.Context(), a, wait)
			body, ctype, found = s.asset(name)
		}
	}
	if !found {
		http.NotFound(w, r)
		return true
	}
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("X-Content-Type-Options", "nosniff")
	// The name changes with the content, so the content under a name never does.
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	h.Set("ETag", `"`+name+`"`)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
	return true
}

// Handler serves the look's assets (ServeAsset), and 404 for any other path.
func (s *Service) Handler(current CurrentFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.ServeAsset(w, r, current) {
			http.NotFound(w, r)
		}
	})
}

// asset is the body and type of the asset named name.
func (s *Service) asset(name string) ([]byte, string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if strings.HasPrefix(name, "look-") {
		css, ok := s.styles[name]
		return css, "text/css; charset=utf-8", ok
	}
	if e, ok := s.logoNames[name]; ok {
		return e.body, e.ctype, true
	}
	return nil, "", false
}

// isLookName reports whether name has the shape of the look's asset names: look-<hash>.css or
// logo-<hash>, the hash endpoint.AssetHashLen lower-case hex digits (endpoint.AssetName).
func isLookName(name string) bool {
	var hash string
	if h, ok := strings.CutPrefix(name, "look-"); ok {
		hash, ok = strings.CutSuffix(h, ".css")
		if !ok {
			return false
		}
	} else if h, ok := strings.CutPrefix(name, "logo-"); ok {
		hash = h
	} else {
		return false
	}
	if len(hash) != endpoint.AssetHashLen {
		return false
	}
	for i := 0; i < len(hash); i++ {
		if c := hash[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
