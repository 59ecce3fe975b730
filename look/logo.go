package look

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/netguard"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
)

// The image types a logo may be. SVG is not one: it is a document that can carry scripts and
// links, and pages show logos from their own origin.
var logoTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// maxRedirects bounds how many redirects a logo fetch follows; each is dialled through the
// guard again, whatever its host.
const maxRedirects = 3

var (
	errLogoStatus = errors.New("look: logo status")
	errLogoSize   = errors.New("look: logo too large")
	errLogoType   = errors.New("look: logo is not a PNG, JPEG, GIF or WebP image")
)

// newLogoClient is the client of logo fetches: every connection dialled through the address
// guard, never through a proxy (the guard must see the address really connected to), TLS
// verified, redirects followed only to https and only a few times.
func newLogoClient(o Options) *http.Client {
	tr := netguard.NewTransport(netguard.TransportOptions{
		Resolver: o.Resolver, AllowPrivate: o.AllowPrivateNetworks, RootCAs: o.RootCAs,
		ConnectTimeout: o.ConnectTimeout, ResponseTimeout: o.Timeout,
		MaxIdleConns: 16, MaxIdleConnsPerHost: 1,
	})
	return &http.Client{
		Transport: tr,
		Timeout:   o.Timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > maxRedirects {
				return fmt.Errorf("look: more than %d redirects", maxRedirects)
			}
			if req.URL.Scheme != "https" {
				return fmt.Errorf("look: redirect to %s, not https", req.URL.Scheme)
			}
			return nil
		},
	}
}

// fetchLogo GETs the image at rawURL and returns it with its sniffed type. The declared
// Content-Type is not believed: the bytes decide, and only the raster types of logoTypes pass.
func (s *Service) fetchLogo(ctx context.Context, rawURL string) ([]byte, string, error) {
	if !logoURLOK(rawURL) {
		return nil, "", errors.New("look: the logo URL is not an https URL with a host")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, "", err
	}
	req.Header.Set("Accept", "image/png, image/jpeg, image/gif, image/webp")
	req.Header.Set("User-Agent", "Proctor (school logo fetcher)")
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, "", fmt.Errorf("%w: %s", errLogoStatus, resp.Status)
	}
	body, err := netguard.ReadBody(resp, s.maxSize, errLogoSize)
	if err != nil {
		return nil, "", err
	}
	return sniffLogo(body)
}

// sniffLogo returns body with its media type as its bytes show it, if a logo may be of that
// type (logoTypes); what it was declared as is never asked.
func sniffLogo(body []byte) ([]byte, string, error) {
	ct := http.DetectContentType(body)
	if !logoTypes[ct] {
		return nil, "", fmt.Errorf("%w: %s", errLogoType, ct)
	}
	return body, ct, nil
}

// IsLogoType reports whether a media type is one a logo may be.
func IsLogoType(mediaType string) bool { return logoTypes[mediaType] }

// logoSource is where a logo comes from: an https URL fetched from its host, or a file the
// school uploaded, read through Options.LogoFile.
type logoSource struct {
	// key names the source in the cache: the URL itself, or "file:<school id>:<file id>". A
	// file's key carries its school, so that the cache never answers one school's file id
	// with what was read for another's.
	key   string
	local bool // an uploaded file, not a URL
	fetch func(ctx context.Context) ([]byte, string, error)
	// attr says which logo it is in the log: a URL's host (its query may carry a token of
	// the host's), a file's id.
	attr slog.Attr
}

// logoSource is the source of appearance a's logo, false when there is none. An uploaded file
// is preferred to a URL when an appearance has both (the operator API keeps one of them).
func (s *Service) logoSource(ctx context.Context, a storage.Appearance) (logoSource, bool) {
	if a.LogoFileID != 0 && s.logoFile != nil {
		t, err := school.FromContext(ctx)
		if err != nil {
			return logoSource{}, false
		}
		id := a.LogoFileID
		return logoSource{
			key: "file:" + strconv.FormatInt(t.SchoolID, 10) + ":" + strconv.FormatInt(id, 10), local: true,
			fetch: func(ctx context.Context) ([]byte, string, error) { return s.readLogoFile(ctx, id) },
			attr:  slog.Int64("file_id", id),
		}, true
	}
	if a.LogoURL != "" && logoURLOK(a.LogoURL) {
		u := a.LogoURL
		return logoSource{
			key:   u,
			fetch: func(ctx context.Context) ([]byte, string, error) { return s.fetchLogo(ctx, u) },
			attr:  slog.String("host", hostOf(u)),
		}, true
	}
	return logoSource{}, false
}

// readLogoFile reads an uploaded logo and holds it to the rules of a fetched one: at most
// Options.MaxLogoSize, and a raster image as its bytes show it, whatever the upload declared.
func (s *Service) readLogoFile(ctx context.Context, id int64) ([]byte, string, error) {
	body, err := s.logoFile(ctx, id)
	if err != nil {
		return nil, "", err
	}
	if int64(len(body)) > s.maxSize {
		return nil, "", fmt.Errorf("%w: %d bytes", errLogoSize, len(body))
	}
	return sniffLogo(body)
}

// logoEntry is what is known of one logo source. A flight is under way while done is open; after
// it, name is the asset's name ("" when the fetch failed) until expires.
type logoEntry struct {
	key     string
	done    chan struct{}
	name    string
	body    []byte
	ctype   string
	expires time.Time
	// refreshing is a fetch under way for an entry whose result is still served (stale).
	refreshing bool
}

// logo is the asset name of the logo of src, "" when there is none (yet). A fresh entry
// answers at once. Otherwise one fetch (shared by every caller for the source) is started, and
// the caller waits for it at most wait, or until ctx ends: a page must not hang on a slow logo
// host, so a page drawn before the logo arrives shows the school's name and the next one the
// logo. An expired logo keeps being shown while its refresh runs.
func (s *Service) logo(ctx context.Context, src logoSource, wait time.Duration) string {
	s.mu.Lock()
	e := s.logos[src.key]
	now := s.now()
	switch {
	case e != nil && e.done == nil && now.Before(e.expires):
		name := e.name
		s.mu.Unlock()
		return name
	case e != nil && e.done == nil && e.name != "":
		// Stale but good: serve it and refresh behind it.
		if !e.refreshing {
			e.refreshing = true
			go s.fly(context.WithoutCancel(ctx), src, nil)
		}
		name := e.name
		s.mu.Unlock()
		return name
	case e == nil || e.done == nil:
		done := make(chan struct{})
		e = &logoEntry{key: src.key, done: done}
		s.store(e)
		go s.fly(context.WithoutCancel(ctx), src, done)
	}
	done := e.done
	s.mu.Unlock()

	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		return ""
	case <-ctx.Done():
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.logos[src.key]; e != nil && e.done == nil {
		return e.name
	}
	return ""
}

// fly fetches the logo of src, detached from any one page's request (it is shared, and a member
// closing the page must not fail it for the others), and records the result. done is the
// entry's flight channel, closed at the end; nil for the refresh of a stale entry. pageCtx is
// the starting page's context without its cancellation: it carries the request's trace and
// log attributes only.
func (s *Service) fly(pageCtx context.Context, src logoSource, done chan struct{}) {
	ctx, cancel := context.WithTimeout(pageCtx, s.timeout)
	body, ctype, err := src.fetch(ctx)
	cancel()
	now := s.now()

	s.mu.Lock()
	defer s.mu.Unlock()
	if done != nil {
		defer close(done)
	}
	prev := s.logos[src.key]
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		s.log.LogAttrs(pageCtx, slog.LevelWarn, "look: school logo not fetched", src.attr, slog.String("error", err.Error()))
		if done == nil && prev != nil {
			// A failed refresh keeps the logo that was fetched before, and tries again later.
			prev.refreshing = false
			prev.expires = now.Add(s.retryAfter)
			return
		}
		s.store(&logoEntry{key: src.key, expires: now.Add(s.retryAfter)})
		return
	}
	s.store(&logoEntry{key: src.key, name: endpoint.AssetName("logo-", body, ""), body: body, ctype: ctype, expires: now.Add(s.keepFor)})
}

// store puts e in the cache under its source key (s.mu held), replacing the URL's entry, and makes
// room when the cache is full: expired entries first, then any that is not in flight. The
// name index follows.
func (s *Service) store(e *logoEntry) {
	if old := s.logos[e.key]; old != nil {
		s.unindex(old)
	} else if len(s.logos) >= s.maxEntries {
		s.evict()
	}
	s.logos[e.key] = e
	if e.name != "" {
		s.logoNames[e.name] = e
	}
}

func (s *Service) unindex(e *logoEntry) {
	if e.name != "" && s.logoNames[e.name] == e {
		delete(s.logoNames, e.name)
	}
}

// evict drops one entry (s.mu held): an expired one if there is one, else the one that expires
// first. Entries in flight stay, their callers wait on them.
func (s *Service) evict() {
	now := s.now()
	var victim *logoEntry
	for _, e := range s.logos {
		if e.done != nil {
			continue
		}
		if !now.Before(e.expires) {
			victim = e
			break
		}
		if victim == nil || e.expires.Before(victim.expires) {
			victim = e
		}
	}
	if victim != nil {
		s.unindex(victim)
		delete(s.logos, victim.key)
	}
}

// hostOf is the host of a URL for the log, "" when it has none.
func hostOf(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	return u.Host
}
