package graphql

import (
	"bytes"
	"context"
	_ "embed" // the schema is checked in as SDL and compiled into the binary
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/executor"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/gorilla/mux"
	gql "github.com/graph-gophers/graphql-go"
	gqlerrors "github.com/graph-gophers/graphql-go/errors"
	"github.com/vektah/gqlparser/v2/ast"
	gqlparser "github.com/vektah/gqlparser/v2/parser"

	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/resource"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/scope"
	"github.com/proctorhq/proctor/storage"
)

// Scopes of the Member API (spec, Scopes).
const (
	scopeRead  = scope.AccountRead
	scopeWrite = scope.AccountWrite
)

// Limits. The schema has no cycles and its deepest field sits at depth 6, so maxDepth only ever
// stops introspection's recursive types; it leaves room for the standard introspection query
// (depth 13). maxCost admits the whole curriculum of a full page of courses and the standard
// introspection query with room to spare, and refuses what multiplies beyond them.
const (
	maxBodyBytes    = 64 << 10
	maxQueryBytes   = 32 << 10
	maxDepth        = 15
	maxCost         = 100_000
	maxOverlapPairs = 5_000
	maxSelections   = 10_000
)

// queryCacheSize is how many parsed and validated documents the executor keeps: clients send a
// handful of distinct queries, each many times.
const queryCacheSize = 100

//go:embed schema.graphql
var schemaSDL string

// Deps are what the handler is built from.
type Deps struct {
	Store    Store
	Verifier resource.Verifier
	Logger   *slog.Logger
	// Now is the clock payments, lectures and meetings are judged by; time.Now if nil.
	Now func() time.Time
}

// Handler serves POST /member/graphql.
type Handler struct {
	store Store
	door  resource.Door
	log   *slog.Logger
	now   func() time.Time
	// schema is graphql-go's reading of the SDL, without resolvers: it validates each request
	// (its rules, messages and limits are the API's) and gives the cost model its types.
	schema *gql.Schema
	// exec runs what schema accepted, through the code gqlgen generated from the same SDL
	// (exec_gen.go): fields are read by direct calls, not by reflection, which is most of the
	// work for a curriculum of thousands of lectures.
	exec *executor.Executor
	cost costModel
}

// New builds the handler. The schema is the embedded SDL; gqlgen checked it against the
// resolvers when it generated exec_gen.go, and graphql-go parses it here (hence the panic rather
// than an error every caller would have to handle: the package's tests parse it too).
func New(d Deps) *Handler {
	s := resource.NewSurface("member api", d.Verifier, nil, d.Logger, d.Now)
	schema := gql.MustParseSchema(schemaSDL, nil,
		gql.UseStringDescriptions(),
		gql.MaxDepth(maxDepth),
		// graphql-go's own guard against documents built to be slow to validate; every
		// legitimate query, introspection included, stays far below it. maxSelections, its
		// guard against documents slow to expand, is applied before execution (selections.go).
		gql.OverlapValidationLimit(maxOverlapPairs),
	)
	exec := executor.New(NewExecutableSchema(Config{Resolvers: root{}}))
	exec.Use(extension.Introspection{})
	exec.Use(curriculumWriter{})
	exec.SetQueryCache(lru.New[*ast.QueryDocument](queryCacheSize))
	exec.SetErrorPresenter(graphql.DefaultErrorPresenter)
	exec.SetRecoverFunc(panicHandler{log: s.Log}.recover)
	return &Handler{
		store: d.Store, door: s.Door, log: s.Log, now: s.Now,
		schema: schema, exec: exec, cost: costModel{schema: schema.AST()},
	}
}

// Mount registers the endpoint. Only POST is served (spec, Endpoints); other methods get the
// router's 405.
func (h *Handler) Mount(r *mux.Router) {
	r.Handle(endpoint.MemberGraphQL, h).Methods(http.MethodPost)
}

// body is a GraphQL-over-HTTP request.
type body struct {
	Query         string         `json:"query"`
	OperationName string         `json:"operationName"`
	Variables     map[string]any `json:"variables"`
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	t, err := school.FromContext(ctx)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	g, ok := h.authenticate(w, r)
	if !ok {
		return
	}

	// The request itself. Its errors are GraphQL-shaped, for a client that has authenticated.
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		writeErrors(w, http.StatusUnsupportedMediaType, newError(codeUnsupportedRequest, "Send the query as JSON with Content-Type: application/json."))
		return
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		if edge.TooLarge(err) {
			writeErrors(w, http.StatusRequestEntityTooLarge, newError(codeTooLarge, "The request body is larger than %d bytes.", maxBodyBytes))
			return
		}
		writeErrors(w, http.StatusBadRequest, newError(codeBadRequest, "The request body could not be read."))
		return
	}
	var req body
	if err := json.Unmarshal(raw, &req); err != nil || req.Query == "" {
		writeErrors(w, http.StatusBadRequest, newError(codeBadRequest, `The body must be a JSON object with a "query" string.`))
		return
	}
	if len(req.Query) > maxQueryBytes {
		writeErrors(w, http.StatusOK, newError(codeTooLarge, "The query is longer than %d bytes.", maxQueryBytes))
		return
	}
	if refusal := h.measure(ctx, req); refusal != nil {
		writeResponse(w, &gql.Response{Errors: refusal})
		return
	}
	if errs := h.schema.ValidateWithVariables(req.Query, req.Variables); len(errs) > 0 {
		sanitize(ctx, h.log, errs)
		writeResponse(w, &gql.Response{Errors: errs})
		return
	}

	resp := h.run(h.withRequest(ctx, t, g), req, raw)
	sanitize(ctx, h.log, resp.Errors)
	writeResponse(w, resp)
}

// run executes a request graphql-go has validated. Its answer takes graphql-go's shape, so that
// what follows (sanitize, writeResponse) is the same for every answer.
func (h *Handler) run(ctx context.Context, req body, raw []byte) *gql.Response {
	params := &graphql.RawParams{Query: req.Query, OperationName: req.OperationName}
	if req.Variables != nil {
		// gqlgen reads integers as JSON numbers, not as the float64 encoding/json makes them.
		var v struct {
			Variables map[string]any `json:"variables"`
		}
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		if err := d.Decode(&v); err != nil {
			return &gql.Response{Errors: []*gqlerrors.QueryError{queryError(newError(codeBadRequest, `The body must be a JSON object with a "query" string.`))}}
		}
		params.Variables = v.Variables
	}
	ctx = graphql.StartOperationTrace(ctx) // the executor times every operation from here
	oc, errs := h.exec.CreateOperationContext(ctx, params)
	if len(errs) > 0 {
		doc := oc.Doc
		if doc == nil { // refused in validation
			doc, _ = gqlparser.ParseQuery(&ast.Source{Input: req.Query})
		}
		if doc != nil {
			// What graphql-go's validation lets through and its execution refuses, in its words.
			switch op := doc.Operations.ForName(req.OperationName); {
			case op == nil:
				return &gql.Response{Errors: []*gqlerrors.QueryError{operationError(len(doc.Operations), req.OperationName)}}
			case op.Operation == ast.Subscription:
				return &gql.Response{Errors: []*gqlerrors.QueryError{{Message: "graphql-ws protocol header is missing"}}}
			}
		}
		return &gql.Response{Errors: queryErrors(errs, false)}
	}
	if !withinSelections(oc.Operation.SelectionSet, oc.Variables, maxSelections) {
		return &gql.Response{Data: json.RawMessage("null"), Errors: []*gqlerrors.QueryError{{
			Err:     gql.ErrTooManySelections,
			Message: fmt.Sprintf("query expands to too many selections (limit %d)", maxSelections),
		}}}
	}
	respond, ctx := h.exec.DispatchOperation(ctx, oc)
	resp := respond(ctx)
	return &gql.Response{Data: resp.Data, Errors: queryErrors(resp.Errors, true)}
}

// authenticate verifies the bearer token and the scopes (spec, Errors: the protected-resource
// rows). It writes the refusal itself and reports whether to go on.
func (h *Handler) authenticate(w http.ResponseWriter, r *http.Request) (resource.Grant, bool) {
	// The Member API reads one member's data and has no anonymous mode (spec, Authentication 7).
	a, rf := h.door.Authenticate(r, resource.Policy{Scopes: []string{scopeRead, scopeWrite}})
	switch {
	case rf == nil:
		return a.Grant, true
	case rf.Kind == resource.MissingScope:
		resource.MemberAPI.Challenge(w, r, http.StatusForbidden, "insufficient_scope",
			"The Member API needs the account:read scope (account:write for its mutations).", rf.Scope)
	default:
		resource.MemberAPI.WriteError(w, r, rf.Err)
	}
	return resource.Grant{}, false
}

// measure refuses a query whose estimated cost is above maxCost, before anything runs. It
// returns nil to go ahead.
func (h *Handler) measure(ctx context.Context, req body) []*gqlerrors.QueryError {
	cost, err := h.cost.queryCost(req.Query, req.OperationName, req.Variables, maxCost)
	switch {
	case err != nil:
		// Most often the document is malformed: graphql-go's validation says how.
		if errs := h.schema.ValidateWithVariables(req.Query, req.Variables); len(errs) > 0 {
			sanitize(ctx, h.log, errs)
			return errs
		}
		h.log.LogAttrs(ctx, slog.LevelWarn, "member api: valid query not measured", slog.String("error", err.Error()))
		return []*gqlerrors.QueryError{queryError(newError(codeTooComplex, "The query could not be measured, so it was not run."))}
	case cost > maxCost:
		return []*gqlerrors.QueryError{queryError(newError(codeTooComplex,
			"The query's estimated cost is above the limit of %d. Ask for fewer nodes with first, or for fewer fields.", maxCost))}
	}
	return nil
}

func queryError(e *apiError) *gqlerrors.QueryError {
	return &gqlerrors.QueryError{Message: e.message, Extensions: e.Extensions()}
}

// writeErrors answers a request that never reached execution.
func writeErrors(w http.ResponseWriter, status int, e *apiError) {
	w.Header().Set("Cache-Control", "no-store")
	edge.WriteJSON(w, status, &gql.Response{Errors: []*gqlerrors.QueryError{queryError(e)}})
}

// writeResponse answers with a GraphQL result: 200 whatever its errors (spec, Errors: clients
// match on errors, not on the status code). It is the member's own data: never cached.
//
// A result without errors or extensions is written around the executor's data as it stands:
// that is already compact JSON, its strings escaped as encoding/json escapes them (strings.go),
// and marshalling the response would only scan it again (a tenth of a curriculum request's CPU
// for 4000 lectures).
func writeResponse(w http.ResponseWriter, resp *gql.Response) {
	w.Header().Set("Cache-Control", "no-store")
	if len(resp.Errors) == 0 && resp.Extensions == nil && resp.Data != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(`{"data":`))
		_, _ = w.Write(resp.Data)
		_, _ = w.Write([]byte("}\n"))
		return
	}
	edge.WriteJSON(w, http.StatusOK, resp)
}

// request is what every resolver of one HTTP request shares: who asks, at which school, at
// what time, and the member's row, read at most once.
type request struct {
	store  Store
	school *school.School
	grant  resource.Grant
	now    time.Time
	member func() (storage.Member, error)
}

type requestKey struct{}

// withRequest returns ctx carrying the request every resolver of this execution shares.
func (h *Handler) withRequest(ctx context.Context, t *school.School, g resource.Grant) context.Context {
	req := &request{store: h.store, school: t, grant: g, now: h.now().UTC()}
	req.member = sync.OnceValues(func() (storage.Member, error) {
		return req.store.GetMember(ctx, g.MemberID)
	})
	return context.WithValue(ctx, requestKey{}, req)
}

// requestFrom returns the request a resolver runs for; ServeHTTP always puts one there.
func requestFrom(ctx context.Context) *request {
	return ctx.Value(requestKey{}).(*request)
}

// requestWithScope returns the request a resolver runs for when its token holds scope, and
// otherwise the error naming the scope (scopeError).
func requestWithScope(ctx context.Context, scope string) (*request, error) {
	req := requestFrom(ctx)
	if !req.grant.HasScope(scope) {
		return nil, scopeError(scope)
	}
	return req, nil
}
