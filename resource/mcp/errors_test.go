package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/resource"
	mcpendpoint "github.com/proctorhq/proctor/resource/mcp"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/server/servertest"
)

// challenge checks a Bearer challenge: the status, the error code, the scope ("" for none) and
// the pointer to the called origin's metadata for /mcp (RFC 9728 section 3.1).
func (r rpc) challenge(t *testing.T, what string, status int, code, scope string, tn *school.School) {
	t.Helper()
	h := r.header.Get("WWW-Authenticate")
	if r.status != status || !strings.HasPrefix(h, "Bearer ") || !strings.Contains(h, `error="`+code+`"`) ||
		!strings.Contains(h, `resource_metadata="`+tn.URL(endpoint.ProtectedResourceMetadata+endpoint.MCP)+`"`) {
		t.Errorf("%s: %d %q, want %d with a %s challenge\n%s", what, r.status, h, status, code, r.body)
		return
	}
	if scope != "" && !strings.Contains(h, `scope="`+scope+`"`) || scope == "" && strings.Contains(h, "scope=") {
		t.Errorf("%s: challenge %q, want scope %q", what, h, scope)
	}
	var body struct{ Error string }
	if json.Unmarshal(r.body, &body) != nil || body.Error != code {
		t.Errorf("%s: body %s, want error %q", what, r.body, code)
	}
}

// memberScopes is the scope of every 401 that names no tool's scope: what a member client can get.
const memberScopes = "account:read account:write"

// metadataScopes follows a challenge's resource_metadata and returns the document's resource
// and scopes_supported.
func (e *env) metadataScopes(h string) (string, string) {
	e.T.Helper()
	_, url, ok := strings.Cut(h, `resource_metadata="`)
	url, _, _ = strings.Cut(url, `"`)
	if !ok {
		e.T.Fatalf("no resource_metadata in %q", h)
	}
	r := e.do(http.MethodGet, url, "", "")
	var md struct {
		Resource        string   `json:"resource"`
		ScopesSupported []string `json:"scopes_supported"`
	}
	if r.status != 200 || json.Unmarshal(r.body, &md) != nil {
		e.T.Fatalf("GET %s: %d %s", url, r.status, r.body)
	}
	return md.Resource, strings.Join(md.ScopesSupported, " ")
}

// TestTokenErrors has one case per kind of token /mcp refuses (spec, Errors: the protected
// resource rows).
func TestTokenErrors(t *testing.T) {
	e := newEnv(t, "sqlite")
	for _, tc := range []struct {
		name  string
		token string
	}{
		{"garbled", "not-a-token.at-all"},
		{"forged", strings.Repeat("a", 43) + "." + strings.Repeat("b", 43)},
		{"expired", e.Token(e.A, studentEmail, servertest.TokenOptions{Scopes: []string{"account:read"}, Expired: true})},
		{"revoked", e.Token(e.A, studentEmail, servertest.TokenOptions{Scopes: []string{"account:read"}, Revoked: true})},
		{"bound to school B's origin", e.Token(e.A, studentEmail, servertest.TokenOptions{Scopes: []string{"account:read"}, Resource: e.B.Origin})},
		{"school B's token", e.Token(e.B, studentEmail, readScope)},
		{"no school_id", e.Token(e.A, studentEmail, servertest.TokenOptions{Scopes: []string{"account:read"}, SchoolID: new(int64)})},
	} {
		// Even a request that needs no token is refused with a bad one: a client must learn
		// that its token is no good.
		// Every 401 names the scopes a member client can get, so that an MCP client whose
		// token died re-authorizes for them and not for all of scopes_supported.
		r := e.post(e.A, tc.token, listTools)
		r.challenge(t, tc.name, 401, "invalid_token", memberScopes, e.A)
		// The metadata the challenge names is /mcp's (RFC 9728 section 3.1), and it lists the
		// same scopes: a client that reads scopes_supported instead asks for nothing it is
		// refused.
		if res, scopes := e.metadataScopes(r.header.Get("WWW-Authenticate")); res != e.A.URL(endpoint.MCP) || scopes != memberScopes {
			t.Errorf("%s: the challenge's metadata names %q with scopes %q", tc.name, res, scopes)
		}
	}
	r := e.post(e.A, "", listTools, "Authorization", "Basic dXNlcjpwYXNz")
	r.challenge(t, "Basic credentials", 401, "invalid_token", memberScopes, e.A)

	// A token without a resource owner is not bound to a user (spec, Authentication 7).
	r = e.post(e.A, e.Token(e.A, studentEmail, servertest.TokenOptions{Scopes: []string{"account:read"}, NoOwner: true}), listTools)
	r.challenge(t, "no resource owner", 401, "invalid_token", memberScopes, e.A)
	if !strings.Contains(r.header.Get("WWW-Authenticate"), "not bound to a user") {
		t.Errorf("no resource owner: %q", r.header.Get("WWW-Authenticate"))
	}
}

// TestToolRefusals: a tools/call for a tool the caller may not call is answered before the
// SDK, with the status and challenge an MCP client acts on.
func TestToolRefusals(t *testing.T) {
	e := newEnv(t, "sqlite")
	read := e.Token(e.A, studentEmail, readScope)
	write := e.Token(e.A, studentEmail, writeScope)

	// Anonymous: 401 naming the scope, the start of the client's authorization.
	e.post(e.A, "", toolCall("my_courses", "")).challenge(t, "anonymous my_courses", 401, "invalid_token", "account:read", e.A)
	e.post(e.A, "", toolCall("admin_list_students", "")).challenge(t, "anonymous admin tool", 401, "invalid_token", "students:read", e.A)
	// A token without the scope: 403 naming it (step-up).
	e.post(e.A, read, toolCall("mark_notification_read", `{"notification_id":1}`)).
		challenge(t, "read token writing", 403, "insufficient_scope", "account:write", e.A)
	e.post(e.A, write, toolCall("my_payments", "")).challenge(t, "write token reading", 403, "insufficient_scope", "account:read", e.A)
	e.post(e.A, read, toolCall("admin_list_payments", "")).challenge(t, "member token, admin tool", 403, "insufficient_scope", "orders:read", e.A)
	// In a batch, one refused call refuses the request.
	batch := "[" + toolCall("list_courses", "") + "," + toolCall("mark_all_notifications_read", "") + "]"
	e.post(e.A, read, batch).challenge(t, "batch", 403, "insufficient_scope", "account:write", e.A)

	// What the caller may call goes through to the SDK.
	for _, tc := range []struct {
		name, token, body string
	}{
		{"anonymous public tool", "", toolCall("list_courses", "")},
		{"read token reading", read, toolCall("my_courses", "")},
		{"write token writing", write, toolCall("mark_all_notifications_read", "")},
	} {
		r := e.post(e.A, tc.token, tc.body)
		var res struct {
			Result struct{ IsError bool } `json:"result"`
		}
		if r.status != 200 || r.header.Get("WWW-Authenticate") != "" || json.Unmarshal(r.body, &res) != nil || res.Result.IsError {
			t.Errorf("%s: %d %s", tc.name, r.status, r.body)
		}
		if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			t.Errorf("%s: Content-Type %q, want JSON (no event stream)", tc.name, ct)
		}
	}
	// A tool that does not exist is the SDK's JSON-RPC error, not an HTTP one.
	r := e.post(e.A, "", toolCall("drop_tables", ""))
	var res struct {
		Error *struct{ Code int } `json:"error"`
	}
	if r.status != 200 || json.Unmarshal(r.body, &res) != nil || res.Error == nil {
		t.Errorf("unknown tool: %d %s", r.status, r.body)
	}
}

// TestTransport covers what the endpoint checks before any JSON-RPC: origin, method, size.
func TestTransport(t *testing.T) {
	e := newEnv(t, "sqlite")
	for _, tc := range []struct {
		origin string
		want   int
	}{
		{"", 200},
		{e.A.Origin, 200},
		{strings.ToUpper(e.A.Origin), 200},
		{e.B.Origin, 403}, // another school on the same server
		{"http://evil.example", 403},
		{"null", 403},
		{e.A.Origin + "/path", 403},
		{e.A.Origin + "/", 200},
		{strings.Replace(e.A.Origin, "://", "://user@", 1), 403},
		{e.A.Origin + "?", 403},
	} {
		var headers []string
		if tc.origin != "" {
			headers = []string{"Origin", tc.origin}
		}
		if r := e.post(e.A, "", listTools, headers...); r.status != tc.want {
			t.Errorf("Origin %q: %d, want %d\n%s", tc.origin, r.status, tc.want, r.body)
		}
	}
	// A rebound name never reaches the endpoint: the server serves no school at that Host.
	req, _ := http.NewRequest(http.MethodPost, e.A.URL(endpoint.MCP), strings.NewReader(listTools))
	req.Host = "attacker.example"
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown Host: %v %v", resp.StatusCode, err)
	} else {
		resp.Body.Close()
	}

	if r := e.do(http.MethodGet, e.A.URL(endpoint.MCP), "", ""); r.status != 405 || r.header.Get("Allow") != "POST" {
		t.Errorf("GET: %d Allow %q", r.status, r.header.Get("Allow"))
	}
	if r := e.do(http.MethodDelete, e.A.URL(endpoint.MCP), "", ""); r.status != 405 {
		t.Errorf("DELETE: %d", r.status)
	}
	big := toolCall("search_courses", `{"query":"`+strings.Repeat("x", 70<<10)+`"}`)
	if r := e.post(e.A, "", big); r.status != http.StatusRequestEntityTooLarge {
		t.Errorf("70 KiB body: %d", r.status)
	}
	if r := e.post(e.A, "", `{"jsonrpc":"2.0","id":1,"method":`); r.status != 400 {
		t.Errorf("malformed JSON: %d %s", r.status, r.body)
	}
}

// noVerdict checks the answer to a request whose token could not be checked: 503, JSON error
// temporarily_unavailable, and no challenge (spec, Errors).
func noVerdict(t *testing.T, what string, r rpc) {
	t.Helper()
	var body struct{ Error string }
	if r.status != 503 || r.header.Get("WWW-Authenticate") != "" || json.Unmarshal(r.body, &body) != nil || body.Error != "temporarily_unavailable" {
		t.Errorf("%s: %d %q %s", what, r.status, r.header.Get("WWW-Authenticate"), r.body)
	}
}

// TestNoVerdictDatabase: with the database gone, a token cannot be checked (503), while an
// anonymous caller still gets an MCP answer: a tool error saying to retry.
func TestNoVerdictDatabase(t *testing.T) {
	e := newEnv(t, "sqlite")
	tok := e.Token(e.A, studentEmail, readScope)
	if err := e.Store.Close(); err != nil {
		t.Fatal(err)
	}
	noVerdict(t, "closed store", e.post(e.A, tok, listTools))
	r := e.post(e.A, "", toolCall("list_courses", ""))
	var res struct {
		Result struct {
			IsError bool
			Content []struct{ Text string }
		} `json:"result"`
	}
	if r.status != 200 || json.Unmarshal(r.body, &res) != nil || !res.Result.IsError || len(res.Result.Content) == 0 ||
		!strings.Contains(res.Result.Content[0].Text, "retry") || strings.Contains(res.Result.Content[0].Text, "sql") {
		t.Errorf("anonymous call with the store closed: %d %s", r.status, r.body)
	}
}

// TestNoVerdictOperatorRoles: the role lookup of an operator token is part of the verdict.
func TestNoVerdictOperatorRoles(t *testing.T) {
	e := newEnv(t, "sqlite")
	tok := e.Token(e.A, ownerEmail, operatorScope)
	// The token is checked by a verifier that needs no database; the roles still do.
	h := mcpendpoint.New(mcpendpoint.Deps{Store: e.Store, Verifier: fixedVerifier{resource.Grant{MemberID: 1, Scopes: operatorScope.Scopes}}})
	srv := httptest.NewServer(inSchool(e.A, h))
	t.Cleanup(srv.Close)
	if err := e.Store.Close(); err != nil {
		t.Fatal(err)
	}
	noVerdict(t, "roles unreadable", e.do(http.MethodPost, srv.URL+endpoint.MCP, tok, listTools))
}

// TestNoVerdictRemote: a Member API process verifying through introspection that cannot reach
// the authorization server answers 503 too.
func TestNoVerdictRemote(t *testing.T) {
	e := newEnv(t, "sqlite")
	// A listener closed at once: connections are refused.
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()
	h := mcpendpoint.New(mcpendpoint.Deps{Store: e.Store, Verifier: resource.NewRemoteVerifier(deadURL+resource.IntrospectPath, []byte("key"))})
	srv := httptest.NewServer(inSchool(e.A, h))
	t.Cleanup(srv.Close)
	noVerdict(t, "introspection unreachable", e.do(http.MethodPost, srv.URL+endpoint.MCP, e.Token(e.A, studentEmail, readScope), listTools))
	// Anonymous requests need no verdict.
	if r := e.do(http.MethodPost, srv.URL+endpoint.MCP, "", listTools); r.status != 200 {
		t.Errorf("anonymous: %d %s", r.status, r.body)
	}
}

// inSchool serves h as school tn, as the server's school resolution would.
func inSchool(tn *school.School, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(school.NewContext(r.Context(), tn)))
	})
}

// fixedVerifier accepts every token as the same grant.
type fixedVerifier struct{ g resource.Grant }

func (v fixedVerifier) Verify(context.Context, string) (resource.Grant, error) { return v.g, nil }
