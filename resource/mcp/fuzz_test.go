package mcp_test

import (
	"bytes"
	"encoding/json"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/endpoint"
)

// FuzzMCPBody posts arbitrary JSON-RPC bodies to /mcp of a real server, anonymously, with a
// member token holding both account scopes, or with an owner's operator token, and with an
// arbitrary protocol-version header. Whatever the input, the answer is never a server error
// (nor a panic, which the server's recovery would answer 500), and a JSON answer is valid JSON.
func FuzzMCPBody(f *testing.F) {
	call := func(id, method, params string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` + params + `}`
	}
	for _, seed := range []string{
		call("1", "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`),
		call("1", "tools/list", `{}`),
		call(`"x"`, "tools/list", `{"cursor":"bm90LWEtY3Vyc29y"}`),
		toolCall("list_courses", `{"first":50}`),
		toolCall("list_courses", `{"first":0,"after":"garbage"}`),
		toolCall("get_course", `{"slug":"go-basics"}`),
		toolCall("get_course", `{"slug":""}`),
		toolCall("search_courses", `{"query":"go ownership","first":1}`),
		toolCall("my_courses", `{}`),
		toolCall("my_course_curriculum", `{"slug":"go-basics"}`),
		toolCall("my_payments", `{"first":51}`),
		toolCall("my_notifications", `{"unread_only":true}`),
		toolCall("mark_notification_read", `{"id":999999}`),
		toolCall("mark_notification_read", `{"id":"1"}`),
		toolCall("set_notification_subscription", `{"topic":"posts","channel":"email","enabled":true}`),
		toolCall("admin_list_students", `{"first":5}`),
		toolCall("admin_analytics_summary", `{}`),
		toolCall("no_such_tool", `{}`),
		toolCall("get_course", `{"slug":"go-basics","extra":1}`),
		`[` + toolCall("my_courses", "") + `,` + toolCall("admin_list_courses", "") + `,` + call("2", "tools/list", "{}") + `]`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_course","name":"my_courses"}}`,
		`{"jsonrpc":"1.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`[]`, `[[]]`, `{}`, `null`, `"tools/call"`, `{`, ``, "\xff\xfe{}",
	} {
		for who := range uint8(3) {
			f.Add([]byte(seed), who, "2025-06-18")
		}
	}
	f.Add([]byte(listTools), uint8(1), "")
	f.Add([]byte(listTools), uint8(1), "2025-11-25")
	f.Add([]byte(listTools), uint8(1), "2026-07-28")
	f.Add([]byte(listTools), uint8(1), "1999-01-01")

	e := newEnv(f, "sqlite")
	tokens := []string{"", e.Token(e.A, studentEmail, bothScopes), e.Token(e.A, ownerEmail, operatorScope)}
	handler := e.Server.Config.Handler
	host := strings.TrimPrefix(e.A.Origin, "http://")
	f.Fuzz(func(t *testing.T, body []byte, who uint8, version string) {
		req := httptest.NewRequest(http.MethodPost, endpoint.MCP, bytes.NewReader(body))
		req.Host = host
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if version != "" && !strings.ContainsAny(version, "\r\n\x00") {
			req.Header.Set("MCP-Protocol-Version", version)
		}
		if token := tokens[int(who)%len(tokens)]; token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("body %q (caller %d, version %q): status %d %s", body, who%3, version, rec.Code, rec.Body.String())
		}
		if mt, _, _ := mime.ParseMediaType(rec.Header().Get("Content-Type")); mt == "application/json" && rec.Body.Len() > 0 && !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("body %q: the answer is not JSON: %s", body, rec.Body.String())
		}
	})
}
