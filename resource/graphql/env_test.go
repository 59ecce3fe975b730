package graphql_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/server"
	"github.com/proctorhq/proctor/server/servertest"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/gormstore"
	"github.com/proctorhq/proctor/storage/gormstore/storetest"
)

// env is a whole Proctor behind a real HTTP server, as a Member API client meets it: school A at
// 127.0.0.1:<port> and school B at localhost:<port>, both seeded, and tokens minted straight into
// the store the way the authorization server stores them (so that a test can also make the
// tokens no authorization would: expired, revoked, bound elsewhere, without school_id).
type env struct {
	t      testing.TB
	srv    *httptest.Server
	store  *gormstore.Store
	stmts  *gormstore.StatementCounter
	secret config.Secret
	a, b   *school.School
}

func newEnv(t testing.TB, backend string) *env {
	t.Helper()
	e := &env{t: t, secret: schools.Secret}
	e.store = storetest.Open(t, backend)
	// Before anything shares the store: gorm's callbacks are not safe to change later.
	e.stmts = e.store.CountStatements()
	sch := schools.New(t, schools.Options{Store: e.store})
	e.srv, e.a, e.b = sch.Server, sch.A, sch.B
	servertest.Public(t, sch, server.Deps{}, nil)
	return e
}

func (e *env) ctx(tn *school.School) context.Context { return school.NewContext(e.t.Context(), tn) }

// seed imports data into school tn.
func (e *env) seed(tn *school.School, data *storage.SchoolData) {
	e.t.Helper()
	schools.Import(e.t, e.store, tn, data)
}

// tokenOpts shape a minted token.
type tokenOpts struct {
	scopes   []string
	resource string // default: the school's origin
	schoolID *int64 // default: the school's id; point at 0 for a session without one
	expired  bool
	revoked  bool
	noOwner  bool
}

func schoolID(n int64) *int64 { return &n }

// token mints an access token of school tn for the member with the e-mail, stored as the
// authorization server stores one (authz's session under "session" in the pair's data), and
// already used once, so that a request with it runs no first-use write.
func (e *env) token(tn *school.School, email string, o tokenOpts) string {
	e.t.Helper()
	m, err := e.store.GetMemberByEmail(e.ctx(tn), email)
	if err != nil {
		e.t.Fatal(err)
	}
	return servertest.MintToken(e.t, e.store, e.secret, tn, m.ID, servertest.TokenOptions{
		Scopes: o.scopes, Resource: o.resource, SchoolID: o.schoolID, Expired: o.expired, Revoked: o.revoked, NoOwner: o.noOwner,
	})
}

// reader and writer are the usual member tokens.
var (
	readScope  = tokenOpts{scopes: []string{"openid", "account:read"}}
	writeScope = tokenOpts{scopes: []string{"account:write"}}
	bothScopes = tokenOpts{scopes: []string{"openid", "profile", "account:read", "account:write"}}
)

// response is a decoded Member API answer.
type response struct {
	status int
	header http.Header
	raw    []byte
	Data   json.RawMessage `json:"data"`
	Errors []struct {
		Message    string         `json:"message"`
		Path       []any          `json:"path"`
		Extensions map[string]any `json:"extensions"`
	} `json:"errors"`
	// Error is the body of an OAuth-style refusal (401, 403, 503).
	Error string `json:"error"`
}

// code returns extensions.code of the i-th error, "" if none.
func (r *response) code(i int) string {
	if i >= len(r.Errors) {
		return ""
	}
	c, _ := r.Errors[i].Extensions["code"].(string)
	return c
}

// post sends a GraphQL request to school tn's Member API with the bearer token (none if "").
func (e *env) post(tn *school.School, token string, query string, variables map[string]any) *response {
	e.t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": variables})
	return e.postRaw(tn, token, "application/json", body)
}

func (e *env) postRaw(tn *school.School, token, contentType string, body []byte) *response {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodPost, tn.URL(endpoint.MemberGraphQL), bytes.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	out := &response{status: resp.StatusCode, header: resp.Header}
	out.raw, _ = io.ReadAll(resp.Body)
	if err := json.Unmarshal(out.raw, out); err != nil {
		e.t.Fatalf("answer is not JSON (%d): %s", resp.StatusCode, out.raw)
	}
	return out
}

// eachBackend runs f on SQLite, and on PostgreSQL when it is configured.
func eachBackend(t *testing.T, f func(t *testing.T, e *env)) {
	for _, backend := range storetest.Backends() {
		t.Run(backend, func(t *testing.T) { f(t, newEnv(t, backend)) })
	}
}
