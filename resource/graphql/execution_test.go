package graphql_test

import (
	"encoding/json"
	"testing"
)

// TestAnswersAsBefore pins answers whose exact shape comes from graphql-go, which executed the
// requests before gqlgen's generated code did: refusals of the operation to run, a resolver's
// error (a path, no locations), an argument that does not fit its type, and the selection limit.
func TestAnswersAsBefore(t *testing.T) {
	e := seeded(newEnv(t, "sqlite"))
	read := e.Token(e.A, sam, readScope)
	for _, tc := range []struct {
		name, query, operation string
		variables              map[string]any
		want                   string
	}{
		{"two operations, no name", `query A { viewer { id } } query B { viewer { id } }`, "", nil,
			`{"errors":[{"message":"more than one operation in query document and no operation name given","extensions":{"code":"BAD_REQUEST"}}]}`},
		{"no operation of that name", `query A { viewer { id } }`, "C", nil,
			`{"errors":[{"message":"no operation with name \"C\"","extensions":{"code":"BAD_REQUEST"}}]}`},
		{"no operation of that name, and gqlgen refuses the document", `query A { viewer { id } } subscription B { viewer { id } }`, "C", nil,
			`{"errors":[{"message":"no operation with name \"C\"","extensions":{"code":"BAD_REQUEST"}}]}`},
		{"a subscription", `subscription { viewer { id } }`, "", nil,
			`{"errors":[{"message":"graphql-ws protocol header is missing","extensions":{"code":"BAD_REQUEST"}}]}`},
		{"a resolver's error", `{ viewer { id payments(first: 0) { nodes { tradeNo } } } }`, "", nil,
			`{"errors":[{"message":"first must be between 1 and 50, got 0.","path":["viewer","payments"],"extensions":{"code":"BAD_USER_INPUT"}}],"data":{"viewer":null}}`},
		{"the scope", `mutation { markNotificationRead(id: "abc") { id } }`, "", nil,
			`{"errors":[{"message":"This needs the account:write scope, which the access token does not hold.","path":["markNotificationRead"],"extensions":{"code":"INSUFFICIENT_SCOPE"}}],"data":{"markNotificationRead":null}}`},
	} {
		body, _ := json.Marshal(map[string]any{"query": tc.query, "operationName": tc.operation, "variables": tc.variables})
		if r := e.postRaw(e.A, read, "application/json", body); r.status != 200 || string(r.raw) != tc.want+"\n" {
			t.Errorf("%s: %d %s\nwant %s", tc.name, r.status, r.raw, tc.want)
		}
	}

	// An Int that does not fit 32 bits is the request's fault, as it was.
	r := e.post(e.A, read, `query($n: Int) { viewer { payments(first: $n) { nodes { tradeNo } } } }`, map[string]any{"n": 3000000000})
	if len(r.Errors) != 1 || r.code(0) != "BAD_REQUEST" {
		t.Errorf("first: 3000000000: %s", r.raw)
	}
}
