package graphql_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
)

// TestLimits: each limit answers with a GraphQL error naming it in extensions.code, and nothing
// runs.
func TestLimits(t *testing.T) {
	e := seeded(newEnv(t, "sqlite"))
	token := e.Token(e.A, sam, bothScopes)

	// Introspection's types are recursive; the schema's own fields nest 6 deep at most.
	deep := "{ __schema { types { " + strings.Repeat("ofType { ", 14) + "name" + strings.Repeat(" }", 16) + " }"
	curriculum := `viewer { enrolledCourses(first: 50) { nodes { sections { lectures { title state isLocked duration } } detailProgress { percent } } } }`
	aliases := "{"
	for _, a := range []string{"a", "b", "c", "d", "e", "f"} {
		aliases += " " + a + ": " + curriculum
	}
	aliases += " }"

	// 2^14 spreads of one field: cheap by the estimate, but built to be slow to validate and
	// expand; graphql-go's guards refuse it.
	fan := "{ viewer { ...F0 } }"
	for i := range 14 {
		fan += fmt.Sprintf(" fragment F%d on Viewer { ...F%d ...F%d }", i, i+1, i+1)
	}
	fan += " fragment F14 on Viewer { id }"

	for _, tc := range []struct {
		name, query, code string
		variables         map[string]any
	}{
		{"depth", deep, "QUERY_TOO_DEEP", nil},
		{"cost", aliases, "QUERY_TOO_COMPLEX", nil},
		{"fragment fan-out", fan, "QUERY_TOO_COMPLEX", nil},
		{"query length", "{ viewer { id } }" + strings.Repeat(" ", 33<<10), "QUERY_TOO_LARGE", nil},
		{"syntax", "{ viewer { id }", "GRAPHQL_PARSE_FAILED", nil},
		{"unknown field", "{ viewer { password } }", "GRAPHQL_VALIDATION_FAILED", nil},
	} {
		r := e.post(e.A, token, tc.query, tc.variables)
		if r.status != http.StatusOK || len(r.Errors) == 0 || r.code(0) != tc.code || len(r.Data) != 0 && string(r.Data) != "null" {
			t.Errorf("%s: %d %.300s; want 200, %s and no data", tc.name, r.status, r.raw, tc.code)
		}
	}

	// first is bounded on every connection: above 50 (or below 1) is refused at that field.
	for _, conn := range []string{"enrolledCourses", "digitalProducts", "consultingServices", "eventRegistrations", "payments", "notifications"} {
		for _, first := range []int{0, 51, -1} {
			r := e.post(e.A, token, `query($n: Int) { viewer { `+conn+`(first: $n) { pageInfo { hasNextPage } } } }`, map[string]any{"n": first})
			if r.status != http.StatusOK || len(r.Errors) != 1 || r.code(0) != "BAD_USER_INPUT" || !strings.Contains(r.Errors[0].Message, "between 1 and 50") {
				t.Errorf("%s(first: %d): %s", conn, first, r.raw)
			}
		}
		r := e.post(e.A, token, `{ viewer { `+conn+`(first: 50) { pageInfo { hasNextPage } } } }`, nil)
		if len(r.Errors) != 0 {
			t.Errorf("%s(first: 50): %s", conn, r.raw)
		}
		r = e.post(e.A, token, `{ viewer { `+conn+`(after: "bm90LWEtY3Vyc29y") { pageInfo { hasNextPage } } } }`, nil)
		if len(r.Errors) != 1 || r.code(0) != "BAD_USER_INPUT" {
			t.Errorf("%s with a foreign cursor: %s", conn, r.raw)
		}
	}

	// The body: too large, not JSON, not a query, wrong content type.
	big, _ := json.Marshal(map[string]any{"query": "{ viewer { id } }", "variables": map[string]any{"pad": strings.Repeat("x", 70<<10)}})
	for _, tc := range []struct {
		name, contentType string
		body              []byte
		status            int
		code              string
	}{
		{"body too large", "application/json", big, http.StatusRequestEntityTooLarge, "QUERY_TOO_LARGE"},
		{"not JSON", "application/json", []byte("{viewer{id}}"), http.StatusBadRequest, "BAD_REQUEST"},
		{"no query", "application/json", []byte(`{"variables":{}}`), http.StatusBadRequest, "BAD_REQUEST"},
		{"form body", "application/x-www-form-urlencoded", []byte("query=%7Bviewer%7Bid%7D%7D"), http.StatusUnsupportedMediaType, "UNSUPPORTED_MEDIA_TYPE"},
	} {
		r := e.postRaw(e.A, token, tc.contentType, tc.body)
		if r.status != tc.status || r.code(0) != tc.code {
			t.Errorf("%s: %d %s; want %d %s", tc.name, r.status, r.raw, tc.status, tc.code)
		}
	}
	// A charset parameter is fine.
	r := e.postRaw(e.A, token, "application/json; charset=utf-8", []byte(`{"query":"{ viewer { id } }"}`))
	if r.status != http.StatusOK || len(r.Errors) != 0 {
		t.Errorf("JSON with a charset: %d %s", r.status, r.raw)
	}
}

// TestIntrospection: the standard introspection query runs, within every limit, and the schema
// it returns describes the consulting lists as not the viewer's bookings.
func TestIntrospection(t *testing.T) {
	e := seeded(newEnv(t, "sqlite"))
	q, err := os.ReadFile("testdata/introspection.graphql")
	if err != nil {
		t.Fatal(err)
	}
	r := e.post(e.A, e.Token(e.A, sam, readScope), string(q), nil)
	if r.status != http.StatusOK || len(r.Errors) != 0 || !bytes.Contains(r.raw, []byte(`"name":"Viewer"`)) {
		t.Fatalf("introspection: %d %.500s", r.status, r.raw)
	}
	for _, phrase := range []string{"recurring weekly availability. Not the viewer's bookings", "by anyone, not only the\\nviewer; nothing says whose they are. Not the viewer's bookings"} {
		if !bytes.Contains(r.raw, []byte(phrase)) {
			t.Errorf("introspection lacks %q", phrase)
		}
	}
}
