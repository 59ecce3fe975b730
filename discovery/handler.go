package discovery

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/resource"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
)

// pathResources are the protected resources with path-specific metadata (RFC 9728 section 3.1):
// their challenges name it, and MCP clients derive its URL from the endpoint they were given.
var pathResources = []resource.Protected{resource.MCP, resource.MemberAPI}

// Deps are what the handler reads.
type Deps struct {
	// Catalog supplies the published offer listed by /llms.txt and /pricing.md. It may be nil
	// for a handler that only mounts the protected-resource metadata.
	Catalog storage.Catalog
	// Logger records store failures (the client only sees a 503); nil discards them.
	Logger *slog.Logger
	// Now decides which events are upcoming; nil is time.Now. Tests fix it.
	Now func() time.Time
}

// Handler serves the discovery documents.
type Handler struct{ deps Deps }

// New returns the discovery handler.
func New(d Deps) *Handler {
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	return &Handler{deps: d}
}

func (h *Handler) now() time.Time { return h.deps.Now() }

// Mount registers the routes listed in the package documentation.
func (h *Handler) Mount(r *mux.Router) {
	for _, path := range []string{endpoint.ServerMetadata, endpoint.OpenIDConfiguration} {
		handleRead(r, path, serveDocument(func(t *school.School) any { return ServerMetadataFor(t) }))
	}
	h.MountResourceMetadata(r)
	for _, doc := range textDocs {
		handleRead(r, doc.path, h.serveText(doc))
	}
}

// MountResourceMetadata registers only the protected-resource metadata (a Member API process
// serves these, not the authorization server's documents).
func (h *Handler) MountResourceMetadata(r *mux.Router) {
	handleRead(r, endpoint.ProtectedResourceMetadata, serveDocument(func(t *school.School) any { return ResourceMetadataFor(t, resource.Origin) }))
	for _, p := range pathResources {
		handleRead(r, endpoint.ProtectedResourceMetadata+p.Path, serveDocument(func(t *school.School) any { return ResourceMetadataFor(t, p) }))
	}
}

// handleRead routes path to h for the methods every document answers: GET, HEAD and the CORS
// preflight (OPTIONS).
func handleRead(r *mux.Router, path string, h http.Handler) {
	r.Handle(path, h).Methods(http.MethodGet, http.MethodHead, http.MethodOptions)
}

// serveDocument answers GET with the school's document and a CORS preflight with 204.
func serveDocument(build func(*school.School) any) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t, ok := publicSchool(w, r)
		if !ok {
			return
		}
		w.Header().Set("Cache-Control", documentCacheControl)
		edge.WriteJSON(w, http.StatusOK, build(t))
	})
}

// documentCacheControl is how long a cache may keep any discovery document, JSON or text: five
// minutes.
const documentCacheControl = "public, max-age=300"

// publicSchool opens a public read (answering a CORS preflight) and finds the request's school
// (answering 404 without one); it returns false when the response has been written.
func publicSchool(w http.ResponseWriter, r *http.Request) (*school.School, bool) {
	if !edge.PublicRead(w, r) {
		return nil, false
	}
	t, err := school.FromContext(r.Context())
	if err != nil {
		edge.WriteNoSchool(w)
		return nil, false
	}
	return t, true
}
