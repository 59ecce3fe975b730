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
// long enough that the pages of a sign-in flow (login, consent) read it once, not once per page,
// short enough that an operator who changed it on another replica sees it on the next page
// after a moment.
const DefaultAppearanceCache = 10 * time.Second

// schoolLooks gives the pages their school's appearance, read from the store and reused for
// Deps.AppearanceCache, so that a change through the operator API shows on the next page of the
// replica that made it and within that while on every other replica.
type schoolLooks struct {
	s       *Server
	service *look.Service
	ttl     time.Duration
	mu      *sync.Mutex
	cached  map[int64]cachedAppearance
}

type cachedAppearance struct {
	appearance storage.Appearance
	expires    time.Time
}

func (s *Server) schoolLooks() schoolLooks {
	o := look.Options{Logger: s.deps.Logger}
	// An uploaded logo is read where the operator API wrote it.
	if rows, ok := s.deps.Store.(operator.FileRows); ok {
		o.LogoFile = operator.Files{Rows: rows, Dir: operator.DefaultStorageDir(s.deps.Config.Database)}.Logo
	}
	ttl := s.deps.AppearanceCache
	if ttl == 0 {
		ttl = DefaultAppearanceCache
	}
	return schoolLooks{s: s, service: look.New(o), ttl: ttl, mu: &sync.Mutex{}, cached: map[int64]cachedAppearance{}}
}

// current reads the appearance of the context's school from the store.
func (l schoolLooks) current(ctx context.Context) (storage.Appearance, error) {
	sc, err := l.s.deps.Store.GetSchool(ctx)
	return sc.Appearance, err
}

// recent is current, reused for l.ttl.
func (l schoolLooks) recent(ctx context.Context, t *school.School) (storage.Appearance, error) {
	now := time.Now()
	l.mu.Lock()
	c, ok := l.cached[t.SchoolID]
	l.mu.Unlock()
	if ok && now.Before(c.expires) {
		return c.appearance, nil
	}
	a, err := l.current(ctx)
	if err != nil || l.ttl < 0 {
		return a, err
	}
	l.mu.Lock()
	l.cached[t.SchoolID] = cachedAppearance{appearance: a, expires: now.Add(l.ttl)}
	l.mu.Unlock()
	return a, nil
}

// forget drops the context's school's appearance after the operator API changed the school.
func (l schoolLooks) forget(ctx context.Context) {
	if t, err := school.FromContext(ctx); err == nil {
		l.mu.Lock()
		delete(l.cached, t.SchoolID)
		l.mu.Unlock()
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
