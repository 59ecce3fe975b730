package server

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/look"
	"github.com/proctorhq/proctor/operator"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/templates"
)

// DefaultAppearanceCache is how long a replica reuses a school's appearance (Deps.AppearanceCache):
// long enough that the pages of a sign-in flow (login, consent) read it once, not once per page.
// With Redis a change made on another replica is seen on the next page whatever this is
// (appearanceVersions); it bounds how stale a page may be only while Redis does not answer, or
// without Redis, or after a change made outside the operator API (proctor seed).
const DefaultAppearanceCache = 10 * time.Second

// schoolLooks gives the pages their school's appearance, read from the store and reused for
// Deps.AppearanceCache. A change through the operator API shows on the next page of the replica
// that made it (forget); with Redis (redis.url) on the next page of every other replica too,
// which compares the version it read with Redis's before reusing its copy (appearanceVersions);
// without Redis within the cache's time.
type schoolLooks struct {
	s       *Server
	service *look.Service
	ttl     time.Duration
	// versions is nil without Redis.
	versions *appearanceVersions
	mu       *sync.Mutex
	cached   map[int64]cachedAppearance
}

type cachedAppearance struct {
	appearance storage.Appearance
	expires    time.Time
	// version is the appearance version read before the appearance; known is false when Redis
	// did not answer then, so that the copy is read again once Redis answers.
	version string
	known   bool
}

// schoolLooks builds the pages' appearance cache; versions is nil without Redis.
func (s *Server) schoolLooks(versions *appearanceVersions) schoolLooks {
	o := look.Options{Logger: s.deps.Logger}
	// An uploaded logo is read where the operator API wrote it.
	if rows, ok := s.deps.Store.(operator.FileRows); ok {
		o.LogoFile = operator.Files{Rows: rows, Dir: operator.DefaultStorageDir(s.deps.Config.Database)}.Logo
	}
	ttl := s.deps.AppearanceCache
	if ttl == 0 {
		ttl = DefaultAppearanceCache
	}
	return schoolLooks{s: s, service: look.New(o), ttl: ttl, versions: versions, mu: &sync.Mutex{}, cached: map[int64]cachedAppearance{}}
}

// current reads the appearance of the context's school from the store.
func (l schoolLooks) current(ctx context.Context) (storage.Appearance, error) {
	sc, err := l.s.deps.Store.GetSchool(ctx)
	return sc.Appearance, err
}

// recent is current, reused for l.ttl while the appearance's version in Redis (if any) is the
// one read with it. The version is read before the appearance: a change stored between the two
// reads leaves a copy whose version is already old, read again on the next page, never a new
// version on an old copy.
func (l schoolLooks) recent(ctx context.Context, t *school.School) (storage.Appearance, error) {
	now := time.Now()
	var version string
	known := false
	if l.versions != nil {
		v, err := l.versions.version(ctx, t.SchoolID)
		// Without an answer, the time to live alone decides (appearanceVersions logs it).
		version, known = v, err == nil
	}
	l.mu.Lock()
	c, ok := l.cached[t.SchoolID]
	l.mu.Unlock()
	if ok && now.Before(c.expires) && (!known || (c.known && c.version == version)) {
		return c.appearance, nil
	}
	a, err := l.current(ctx)
	if err != nil || l.ttl < 0 {
		return a, err
	}
	l.mu.Lock()
	l.cached[t.SchoolID] = cachedAppearance{appearance: a, expires: now.Add(l.ttl), version: version, known: known}
	l.mu.Unlock()
	return a, nil
}

// forget drops the context's school's appearance after the operator API stored a change to the
// school, and with Redis gives it a new version, so that every other replica reads it again on
// its next page. Redis failing is logged: the other replicas then show the change within the
// cache's time, and the operator's change stands.
func (l schoolLooks) forget(ctx context.Context) {
	t, err := school.FromContext(ctx)
	if err != nil {
		return
	}
	l.mu.Lock()
	delete(l.cached, t.SchoolID)
	l.mu.Unlock()
	if l.versions == nil {
		return
	}
	if err := l.versions.bump(ctx, t.SchoolID); err != nil {
		l.s.log.WarnContext(ctx, "the school's change was stored but not announced in Redis: other replicas show it within the appearance cache's time",
			"request_id", edge.FromContext(ctx).ID, "school_id", t.SchoolID, "err", err)
	}
}

// page is the look of a page of school t. A store that cannot answer gives the plain look: a
// sign-in page without its colours is better than none.
func (l schoolLooks) page(ctx context.Context, t *school.School) templates.Look {
	a, err := l.recent(ctx, t)
	if err != nil {
		l.s.log.WarnContext(ctx, "read the school's appearance", "request_id", edge.FromContext(ctx).ID, "school_id", t.SchoolID, "err", err)
		return templates.Look{Theme: look.ThemeAuto}
	}
	v := l.service.Look(ctx, a)
	out := templates.Look{Theme: v.Theme, StylesheetPath: v.StylesheetPath, LogoPath: v.LogoPath, Color: v.Brand}
	if v.LogoPath != "" {
		out.LogoURL = t.URL(v.LogoPath)
	}
	return out
}

// serve answers the school's stylesheet and logo under /assets/. An asset this replica does
// not hold is rebuilt from the appearance as stored, not as cached: the page that names it may
// have been drawn by a replica that saw a newer one.
func (l schoolLooks) serve(w http.ResponseWriter, r *http.Request) bool {
	return l.service.ServeAsset(w, r, l.current)
}
