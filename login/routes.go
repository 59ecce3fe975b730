package login

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/proctorhq/proctor/school"
)

// The kinds of page a package's adapter (Handler.MemberPage, say) turns into an http.Handler:
// each returns its error for the adapter to write.
type (
	// RequestPage is a page that needs only the request.
	RequestPage = func(http.ResponseWriter, *http.Request) error
	// VisitPage is a page of a signed-in member.
	VisitPage = func(http.ResponseWriter, *http.Request, Visit) error
	// SchoolPage is a page of the request's school, signed in or not.
	SchoolPage = func(http.ResponseWriter, *http.Request, *school.School) error
)

// PageFunc is any of the kinds of page.
type PageFunc interface {
	RequestPage | VisitPage | SchoolPage
}

// Route is one path of a list of pages: what a GET shows and what a POST does. Either may be
// nil, and that method is then not served at the path.
type Route[F PageFunc] struct {
	Path      string
	Get, Post F
}

// MountRoutes registers routes on r in their order, every page through the same adapter, so
// that a list of pages says once how its pages are guarded.
func MountRoutes[F PageFunc](r *mux.Router, adapt func(F) http.Handler, routes []Route[F]) {
	for _, rt := range routes {
		if rt.Get != nil {
			r.Handle(rt.Path, adapt(rt.Get)).Methods(http.MethodGet)
		}
		if rt.Post != nil {
			r.Handle(rt.Path, adapt(rt.Post)).Methods(http.MethodPost)
		}
	}
}
