package graphql_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/endpoint"
)

// memberAPICall sends one request to the Member API handler of school A and decodes the answer.
// It fails the test on a server error or an answer that is not JSON.
type memberAPICall func(t *testing.T, body []byte) *response

func memberAPI(f *testing.F) memberAPICall {
	e := seeded(newEnv(f, "sqlite"))
	token := e.Token(e.A, sam, bothScopes)
	handler := e.Server.Config.Handler
	host := strings.TrimPrefix(e.A.Origin, "http://")
	return func(t *testing.T, body []byte) *response {
		t.Helper()
		req := httptest.NewRequest(http.MethodPost, endpoint.MemberGraphQL, bytes.NewReader(body))
		req.Host = host
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+token)
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("body %q: status %d %s", body, rec.Code, rec.Body.String())
		}
		r := &response{status: rec.Code, header: rec.Header(), raw: rec.Body.Bytes()}
		if err := json.Unmarshal(r.raw, r); err != nil {
			t.Fatalf("body %q: answer is not JSON (%d): %s", body, rec.Code, r.raw)
		}
		return r
	}
}

// documentedCodes are the extensions.code values docs/member-api.md lists that a request can
// earn by its content alone. TEMPORARILY_UNAVAILABLE and INTERNAL_SERVER_ERROR are not among
// them: the database is up, so either would be a fault of the server's (a resolver's panic is
// answered INTERNAL_SERVER_ERROR).
var documentedCodes = map[string]bool{
	"INSUFFICIENT_SCOPE": true, "BAD_USER_INPUT": true, "NOT_FOUND": true,
	"QUERY_TOO_DEEP": true, "QUERY_TOO_COMPLEX": true, "QUERY_TOO_LARGE": true,
	"GRAPHQL_PARSE_FAILED": true, "GRAPHQL_VALIDATION_FAILED": true, "BAD_REQUEST": true,
}

var limitCodes = map[string]bool{"QUERY_TOO_DEEP": true, "QUERY_TOO_COMPLEX": true, "QUERY_TOO_LARGE": true}

// checkAnswer applies what holds for every answer: each error has a documented code, and a
// refusal for a limit ran nothing.
func checkAnswer(t *testing.T, body []byte, r *response) {
	t.Helper()
	limited := false
	for i := range r.Errors {
		code := r.code(i)
		if !documentedCodes[code] {
			t.Fatalf("body %q: error with code %q: %s", body, code, r.raw)
		}
		limited = limited || limitCodes[code]
	}
	if limited && len(r.Data) != 0 && string(r.Data) != "null" {
		t.Fatalf("body %q: refused for a limit, yet data came back: %s", body, r.raw)
	}
}

// Documents the seeds share.
const (
	curriculumPage = `viewer { enrolledCourses(first: 50) { nodes { slug expireDate hasLifetimeAccess
  lastWatchedLecture { lectureId positionSeconds } detailProgress { completedLectures totalLectures percent }
  sections { title lectures { title state isLocked unlockAt duration } } } pageInfo { hasNextPage endCursor } } }`
	deepIntrospection = "{ __schema { types { " + "ofType { ofType { ofType { ofType { ofType { ofType { ofType { ofType { ofType { ofType { ofType { ofType { ofType { ofType { " +
		"name" + " } } } } } } } } } } } } } } } } }"
)

// FuzzMemberAPI posts arbitrary GraphQL documents and variables (or arbitrary bodies) to the
// Member API through the whole server, with a token holding both account scopes. The answer is
// never a server error or a panic, and is always JSON whose errors carry a documented code; a
// query over the text limit is refused as QUERY_TOO_LARGE, and no refusal for a limit comes back
// with data.
func FuzzMemberAPI(f *testing.F) {
	intro, err := os.ReadFile("testdata/introspection.graphql")
	if err != nil {
		f.Fatal(err)
	}
	fan := "{ viewer { ...F0 } }"
	for i := range 14 {
		fan += fmt.Sprintf(" fragment F%d on Viewer { ...F%d ...F%d }", i, i+1, i+1)
	}
	fan += " fragment F14 on Viewer { id }"
	for _, seed := range []struct {
		query, variables string
		raw              bool
	}{
		{query: `{ viewer { id name email avatar { url } schools { schoolId roles } } }`},
		{query: "{ " + curriculumPage + " }"},
		{query: "{ a: " + curriculumPage + " b: " + curriculumPage + " c: " + curriculumPage + " d: " + curriculumPage + " }"},
		{query: deepIntrospection},
		{query: string(intro)},
		{query: fan},
		{query: `query($n: Int, $after: String) { viewer { payments(first: $n, after: $after) { nodes { tradeNo paymentState } pageInfo { endCursor } } } }`, variables: `{"n": 51, "after": "bm90LWEtY3Vyc29y"}`},
		{query: `query($n: Int) { viewer { notifications(first: $n) { nodes { id readAt } } } }`, variables: `{"n": "x"}`},
		{query: `mutation { markAllNotificationsRead { count } }`},
		{query: `mutation($id: ID!) { markNotificationRead(id: $id) { id readAt } }`, variables: `{"id": "999999"}`},
		{query: `mutation { updateNotificationSubscription(topic: posts, channel: email, enabled: true) { topic enabled } }`},
		{query: `{ viewer { password } }`},
		{query: `{ viewer { id }`},
		{query: `query A { viewer { id } } query B { viewer { name } }`},
		{query: `{ viewer { consultingServices { nodes { slots { weekday } meetings { startsAt } } } } }`},
		{query: `{ viewer { ...on Viewer { id } } } fragment F on Viewer { ...F }`},
		{query: `{"query": "{ viewer { id } }", "variables": {"a": [1, {"b": null}]}}`, raw: true},
		{query: `{"variables": {}}`, raw: true},
		{query: `[{"query": "{ viewer { id } }"}]`, raw: true},
		{query: `{"query": 7}`, raw: true},
		{query: ``, raw: true},
	} {
		f.Add(seed.query, seed.variables, seed.raw)
	}
	call := memberAPI(f)
	f.Fuzz(func(t *testing.T, query, variables string, raw bool) {
		body := []byte(query)
		if !raw {
			doc := map[string]any{"query": query}
			if v := json.RawMessage(variables); json.Valid(v) {
				doc["variables"] = v
			}
			body, _ = json.Marshal(doc)
		}
		r := call(t, body)
		checkAnswer(t, body, r)
		if !raw && len(query) > 32<<10 && len(body) <= 64<<10 && (len(r.Errors) != 1 || r.code(0) != "QUERY_TOO_LARGE") {
			t.Fatalf("a query of %d bytes: %d %.300s", len(query), r.status, r.raw)
		}
	})
}

// FuzzMemberAPILimits builds documents of known depth and cost from its input: introspection's
// ofType nested `nest` deep beside `copies` aliased copies of a full page of curricula. Each is
// answered exactly as the limits say: QUERY_TOO_COMPLEX from four copies on (the estimate runs
// first), otherwise QUERY_TOO_DEEP above depth 15, otherwise data and no error.
func FuzzMemberAPILimits(f *testing.F) {
	for _, seed := range [][2]uint8{{0, 0}, {0, 1}, {0, 3}, {0, 4}, {0, 7}, {12, 0}, {13, 0}, {12, 3}, {13, 3}, {13, 4}, {19, 0}} {
		f.Add(seed[0], seed[1])
	}
	call := memberAPI(f)
	f.Fuzz(func(t *testing.T, nest, copies uint8) {
		n, c := int(nest%20), int(copies%8)
		var doc strings.Builder
		doc.WriteString("{ viewer { id } ")
		if n > 0 {
			// __schema, types, n times ofType, name: depth n+3.
			doc.WriteString("__schema { types { " + strings.Repeat("ofType { ", n) + "name" + strings.Repeat(" }", n) + " } } ")
		}
		for i := range c {
			fmt.Fprintf(&doc, "c%d: %s ", i, curriculumPage)
		}
		doc.WriteString("}")
		body, _ := json.Marshal(map[string]string{"query": doc.String()})
		r := call(t, body)
		checkAnswer(t, body, r)
		want := ""
		switch {
		case c >= 4:
			want = "QUERY_TOO_COMPLEX"
		case n+3 > 15:
			want = "QUERY_TOO_DEEP"
		}
		if want == "" {
			if r.status != http.StatusOK || len(r.Errors) != 0 || len(r.Data) == 0 || string(r.Data) == "null" {
				t.Fatalf("depth %d, %d copies: want data, got %d %.300s", n+3, c, r.status, r.raw)
			}
			return
		}
		if r.status != http.StatusOK || len(r.Errors) == 0 || r.code(0) != want {
			t.Fatalf("depth %d, %d copies: want %s, got %d %.300s", n+3, c, want, r.status, r.raw)
		}
	})
}
