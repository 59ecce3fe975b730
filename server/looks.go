package server

import (
	"context"
	"net/http"

	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/look"
	"github.com/proctorhq/proctor/operator"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/templates"
)

// schoolLooks gives the pages their school's appearance, read from the store on each page, so
// that a change through the operator API shows on the next page on every replica.
type schoolLooks struct {
	s       *Server
	service *look.Service
}

func (s *Server) schoolLooks() schoolLooks {
	o := look.Options{Logger: s.deps.Logger}
	// An uploaded logo is read where the operator API wrote it.
	if rows, ok := s.deps.Store.(operator.FileRows); ok {
		o.LogoFile = operator.Files{Rows: rows, Dir: operator.DefaultStorageDir(s.deps.Config.Database)}.Logo
	}
	return schoolLooks{s: s, service: look.New(o)}
}

// current reads the appearance of the context's school.
func (l schoolLooks) current(ctx context.Context) (storage.Appearance, error) {
	sc, err := l.s.deps.Store.GetSchool(ctx)
	return sc.Appearance, err
}

// page is the look of a page of school t. A store that cannot answer gives the plain look: a
// sign-in page without its colours is better than none.
func (l schoolLooks) page(ctx context.Context, t *school.School) templates.Look {
	a, err := l.current(ctx)
	if err != nil {
		l.s.log.WarnContext(ctx, "read the school's appearance", "request_id", edge.FromContext(ctx).ID, "school_id", t.SchoolID, "err", err)
		return templates.Look{Theme: look.ThemeAuto}
	}
	v := l.service.Look(ctx, a)
	return templates.Look{Theme: v.Theme, StylesheetPath: v.StylesheetPath, LogoPath: v.LogoPath}
}

// serve answers the school's stylesheet and logo under /assets/.
func (l schoolLooks) serve(w http.ResponseWriter, r *http.Request) bool {
	return l.service.ServeAsset(w, r, l.current)
}
