package graphql_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/resource/resourcetest"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/server/servertest"
)

// env is resourcetest's whole Proctor, as a Member API client meets it.
type env struct {
	*resourcetest.Env
}

func newEnv(t testing.TB, backend string) *env { return &env{resourcetest.New(t, backend)} }

// eachBackend runs f on SQLite, and on PostgreSQL when it is configured.
func eachBackend(t *testing.T, f func(t *testing.T, e *env)) { resourcetest.EachBackend(t, newEnv, f) }

func schoolID(n int64) *int64 { return &n }

// reader and writer are the usual member tokens.
var (
	readScope  = servertest.TokenOptions{Scopes: []string{"openid", "account:read"}}
	writeScope = servertest.TokenOptions{Scopes: []string{"account:write"}}
	bothScopes = servertest.TokenOptions{Scopes: []string{"openid", "profile", "account:read", "account:write"}}
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
	e.T.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": variables})
	return e.postRaw(tn, token, "application/json", body)
}

func (e *env) postRaw(tn *school.School, token, contentType string, body []byte) *response {
	e.T.Helper()
	status, header, raw := e.Send(http.MethodPost, tn.URL(endpoint.MemberGraphQL), token, bytes.NewReader(body), "Content-Type", contentType)
	out := &response{status: status, header: header, raw: raw}
	if err := json.Unmarshal(raw, out); err != nil {
		e.T.Fatalf("answer is not JSON (%d): %s", status, raw)
	}
	return out
}
