package operator

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gorilla/mux"

	"github.com/proctorhq/proctor/resource"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/scope"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/gormstore"
	"github.com/proctorhq/proctor/storage/gormstore/storetest"
)

// tokens is a Verifier that knows a fixed set of tokens, so that this package's tests exercise
// the API without the authorization server (the flows through it are in package authz).
type tokens map[string]resource.Grant

func (v tokens) Verify(_ context.Context, token string) (resource.Grant, error) {
	switch token {
	case "":
		return resource.Grant{}, resource.ErrNoToken
	case "no-verdict":
		return resource.Grant{}, resource.ErrNoVerdict
	}
	g, ok := v[token]
	if !ok {
		return resource.Grant{}, resource.ErrInvalidToken
	}
	return g, nil
}

// testBodyLimit plays the public listener's body limit: small, so that tests can exceed it.
const testBodyLimit = 4096

// env is the API mounted on a router for one school, over a real store.
type env struct {
	t       testing.TB
	store   *gormstore.Store
	tn      *school.School
	ctx     context.Context
	handler http.Handler
	owner   int64
	dir     string
	// tokens is the verifier the API was built with; tests add tokens to it.
	tokens tokens
}

// allScopes is a token holding every operator scope, for an owner.
const allScopes = "all"

// newEnv builds the API for school 1 over a real store on backend; opts may add to its Deps
// (they run after the store and the owner exist).
func newEnv(t testing.TB, backend string, opts ...func(e *env, d *Deps)) *env {
	t.Helper()
	e := &env{t: t, store: storetest.Open(t, backend), dir: t.TempDir()}
	synced, _ := schools.Sync(t, e.store, schools.File(1, "north", "Northwind", "https://north.example"))
	e.tn, e.ctx = synced[0], schools.Ctx(t, synced[0])
	owner := schools.Member(t, e.store, "owner@example.test", "Owner", schools.At(e.tn, storage.RoleOwner))
	e.owner = owner.ID
	e.tokens = tokens{allScopes: {MemberID: owner.ID, Scopes: scope.NamesFor(scope.Operator)}}
	r := mux.NewRouter()
	d := Deps{Store: e.store, Directory: e.store, Files: e.store, Verifier: e.tokens, StorageDir: e.dir, MaxBodyBytes: testBodyLimit}
	for _, o := range opts {
		o(e, &d)
	}
	h := New(d)
	h.Mount(r)
	e.handler = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		// What the server's middleware does before the router: the school and the body limit.
		req = req.WithContext(school.NewContext(req.Context(), e.tn))
		req.Body = http.MaxBytesReader(w, req.Body, testBodyLimit)
		r.ServeHTTP(w, req)
	})
	return e
}

// request sends a request with a bearer token; a non-nil body that is not []byte is sent as JSON.
func (e *env) request(method, path, token string, body any, header ...string) (int, http.Header, []byte) {
	e.t.Helper()
	req := httptest.NewRequest(method, path, schools.RequestBody(e.t, body))
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	rec := httptest.NewRecorder()
	e.handler.ServeHTTP(rec, req)
	return rec.Code, rec.Header(), rec.Body.Bytes()
}
