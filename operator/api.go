package operator

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humamux"
	"github.com/gorilla/mux"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/resource"
)

// Prefix is where the operations live on every school's origin.
const Prefix = "/api/v1"

// maxJSONBodyBytes bounds a JSON request body: every write takes a small document.
const maxJSONBodyBytes = 64 << 10

// Deps are what the API is built from.
type Deps struct {
	Store     Store
	Directory Directory
	Verifier  resource.Verifier
	Logger    *slog.Logger
	// Now is the clock payments and enrollments are judged by; time.Now if nil.
	Now func() time.Time
	// StorageDir is the directory uploads are written to (storage:write), one sub-directory per
	// school. It is created on the first upload, not before.
	StorageDir string
	// MaxBodyBytes is the public listener's body limit (config http.max_body_bytes), which
	// bounds an upload. Operations stop reading below it, so an oversized body is answered 413
	// by the operation rather than failing half-read. 0 means 1 MiB, the default limit.
	MaxBodyBytes int64
	// Files reads uploaded files' records back, to check the file an appearance names as its
	// logo (update-appearance); nil refuses logo_file_id.
	Files FileRows
	// Inviter sends member invitations (POST /members); nil answers that operation 503.
	Inviter Inviter
	// Audit records the security events of the API's changes (role changes; invitations are
	// recorded by the Inviter); nil records nothing.
	Audit *audit.Recorder
	// SchoolChanged, if set, hears of each change to the school's row (settings, appearance)
	// once it is stored: the pages' cache of the appearance forgets it.
	SchoolChanged func(ctx context.Context)
}

// Handler serves the operator REST API and its OpenAPI document.
type Handler struct {
	store      stores
	door       resource.Door
	log        *slog.Logger
	now        func() time.Time
	storageDir string
	files      FileRows
	maxBody    int64
	inviter    Inviter
	audit      *audit.Recorder
	changed    func(ctx context.Context)

	api huma.API
	// docs caches each school's OpenAPI document (keyed by *school.School, which is immutable
	// for the life of the process): the document only differs between schools in their URLs.
	docs sync.Map
}

// New builds the handler; nothing is registered until Mount.
func New(d Deps) *Handler {
	if d.MaxBodyBytes <= 0 {
		d.MaxBodyBytes = 1 << 20
	}
	s := resource.NewSurface("operator api", d.Verifier, d.Directory, d.Logger, d.Now)
	return &Handler{
		store: stores{d.Store, d.Directory}, log: s.Log, door: s.Door, now: s.Now,
		storageDir: d.StorageDir, files: d.Files, maxBody: d.MaxBodyBytes, inviter: d.Inviter, audit: d.Audit,
		changed: d.SchoolChanged,
	}
}

// Mount registers every operation under Prefix and the document at endpoint.OpenAPI.
func (h *Handler) Mount(r *mux.Router) {
	h.api = humamux.New(r, apiConfig())
	// Before any operation: huma captures the API's middlewares when an operation registers.
	h.api.UseMiddleware(h.authorize)
	for _, register := range []func(huma.API){
		h.registerCourses, h.registerCurriculum, h.registerStudents, h.registerMembers,
		h.registerAnalytics, h.registerOrders, h.registerSchool, h.registerEvents,
		h.registerMembershipPlans, h.registerCoupons, h.registerPosts, h.registerSubscriptions,
		h.registerDigitalProducts, h.registerComments, h.registerLecturers, h.registerFiles,
		h.registerForms, h.registerPages,
	} {
		register(h.api)
	}
	r.Handle(endpoint.OpenAPI, http.HandlerFunc(h.serveOpenAPI)).Methods(http.MethodGet, http.MethodHead, http.MethodOptions)
}

// apiConfig is huma's configuration without the routes huma would add by itself: the document
// is served per school by serveOpenAPI (huma's own would be one document for every school),
// and neither a documentation page loading scripts from a CDN nor per-schema routes belong on
// an authorization server's origin. Dropping the default create hooks also drops the "$schema"
// links huma puts into response bodies, which would point at those missing routes.
func apiConfig() huma.Config {
	c := huma.DefaultConfig("Operator API", "1.0.0")
	c.OpenAPIPath, c.DocsPath, c.SchemasPath = "", "", ""
	c.CreateHooks = nil
	c.Info.Description = apiDescription
	return c
}

// operation is what the route table (routes.go) says about one operation; register turns it
// into a huma.Operation gated by Scope.
type operation struct {
	ID, Method, Path, Scope, Summary, Description string
	Tag                                           string
	Status                                        int // success status; 200 if zero
	// RequestContent lists the media types of a body that is a file rather than JSON (an
	// upload, which may use the whole body limit), for the document.
	RequestContent map[string]*huma.MediaType
}

// register adds the operation id of the route table, served by handler.
func register[I, O any](h *Handler, api huma.API, id string, handler func(context.Context, *I) (*O, error)) {
	addOperation(h, api, route(id), handler)
}

// route is the operation id of the route table. An id missing there is a mistake in the code,
// so it fails at Mount rather than serving an undocumented operation.
func route(id string) operation {
	o, ok := operations[id]
	if !ok {
		panic("operator: no operation " + id + " in the route table")
	}
	o.ID = id
	return o
}

// addOperation adds one operation. Every operation needs exactly one scope: it is both the
// security requirement the document shows and what authorize checks, so the two cannot
// disagree.
func addOperation[I, O any](h *Handler, api huma.API, o operation, handler func(context.Context, *I) (*O, error)) {
	// huma answers 413 once it has read the limit, so the limit must not exceed the
	// listener's: past that, reading fails with an error huma would answer 500.
	limit := h.maxBody
	if o.RequestContent == nil {
		limit = min(limit, maxJSONBodyBytes)
	}
	desc := o.Description
	if desc != "" {
		desc += "\n\n"
	}
	desc += "Requires the `" + o.Scope + "` scope and an owner or admin role at the school."
	var body *huma.RequestBody
	if o.RequestContent != nil {
		body = &huma.RequestBody{Required: true, Content: o.RequestContent}
	}
	huma.Register(api, huma.Operation{
		OperationID:   o.ID,
		Method:        o.Method,
		Path:          Prefix + o.Path,
		Summary:       o.Summary,
		Description:   desc,
		Tags:          []string{o.Tag},
		DefaultStatus: o.Status,
		MaxBodyBytes:  limit,
		Security:      []map[string][]string{{securityScheme: {o.Scope}}},
		Metadata:      map[string]any{scopeKey: o.Scope},
		Errors:        problemStatuses(o),
		Responses:     refusals(api),
		RequestBody:   body,
	}, handler)
}

// problemStatuses are the problem documents an operation may answer besides the 422 and 500
// huma adds itself.
func problemStatuses(o operation) []int {
	statuses := []int{http.StatusInternalServerError}
	if strings.Contains(o.Path, "{") {
		statuses = append(statuses, http.StatusNotFound)
	}
	switch o.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch:
		statuses = append(statuses, http.StatusConflict, http.StatusRequestEntityTooLarge)
	}
	return statuses
}

// BearerError is the body of the refusals authorize writes (RFC 6749 section 5.2 style, as
// every protected resource of the server answers), with a WWW-Authenticate Bearer challenge.
type BearerError struct {
	Error       string `json:"error" enum:"invalid_token,insufficient_scope,temporarily_unavailable"`
	Description string `json:"error_description,omitempty"`
}

// refusals documents the answers of authorize, which are not problem documents.
func refusals(api huma.API) map[string]*huma.Response {
	schema := api.OpenAPI().Components.Schemas.Schema(reflect.TypeFor[BearerError](), true, "BearerError")
	challenge := map[string]*huma.Header{"WWW-Authenticate": {
		Description: "Bearer challenge (RFC 6750 section 3) with error, error_description, scope (403 for a missing scope) and resource_metadata.",
		Schema:      &huma.Schema{Type: "string"},
	}}
	problem := api.OpenAPI().Components.Schemas.Schema(reflect.TypeFor[huma.ErrorModel](), true, "ErrorModel")
	content := map[string]*huma.MediaType{"application/json": {Schema: schema}}
	return map[string]*huma.Response{
		"401": {Description: "The token is missing, invalid, expired, revoked or issued for another school.", Headers: challenge, Content: content},
		// An operation may also refuse what the caller's role does not allow (only an owner
		// grants the owner role): a problem document, without a challenge.
		"403": {
			Description: "The token lacks the operation's scope, or its user is no longer an owner or admin of the school; " +
				"or (a problem document) the caller's role does not allow the request, such as an admin granting the owner role.",
			Headers: challenge,
			Content: map[string]*huma.MediaType{
				"application/json":         {Schema: schema},
				"application/problem+json": {Schema: problem},
			},
		},
		"503": {
			Description: "The token could not be checked (temporarily_unavailable) or the school's data could not be reached (a problem document); retry.",
			Content: map[string]*huma.MediaType{
				"application/json":         {Schema: schema},
				"application/problem+json": {Schema: problem},
			},
		},
	}
}

// DefaultStorageDir is where uploads go when the deployment names no directory: beside the
// SQLite database file ("files" in its directory), or under the system's temporary directory
// for PostgreSQL, whose data lives elsewhere. The path is made absolute at once, so that it
// does not move if the working directory changes later.
func DefaultStorageDir(db config.Database) string {
	dir := filepath.Join(os.TempDir(), "proctor-files")
	if db.Driver == "sqlite" && db.DSN != "" {
		path := strings.TrimPrefix(db.DSN, "file:")
		if i := strings.IndexByte(path, '?'); i >= 0 {
			path = path[:i]
		}
		if path != "" && path != ":memory:" {
			dir = filepath.Join(filepath.Dir(path), "files")
		}
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return dir
}
