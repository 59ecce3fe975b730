package mcp

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestCalledTools(t *testing.T) {
	for _, tc := range []struct {
		body string
		want []string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"my_courses","arguments":{}}}`, []string{"my_courses"}},
		{` {"method":"tools/call","params":{"name":"a"}} `, []string{"a"}},
		{`[{"method":"tools/call","params":{"name":"a"}},{"method":"tools/list"},{"method":"tools/call","params":{"name":"b"}}]`, []string{"a", "b"}},
		{`[{"method":"tools/call","params":{"name":"a"}},{"method":"tools/call","params":{"name":"a"}}]`, []string{"a", "a"}},
		{`{"method":"tools/list","params":{"name":"a"}}`, nil},
		{`{"method":"tools/call"}`, nil},
		{`{"method":"tools/call","params":{"name":7}}`, nil},
		{`{"method":"tools/call","params":{"name":""}}`, nil},
		{`{"method":"tools/call","params":[1]}`, nil},
		{`{"Method":"tools/call","params":{"name":"a"}}`, nil}, // member names are case-sensitive
		{`{"method":"tools/call","params":{"Name":"a"}}`, nil},
		{`[{"method":"tools/call","params":{"name":"a"}}, 42, "x", null]`, []string{"a"}},
		{`{"method":"tools/call","params":{"name":"a"}`, nil},
		{`[`, nil},
		{``, nil},
		{`null`, nil},
		{`"tools/call"`, nil},
	} {
		if got := calledTools([]byte(tc.body)); !slices.Equal(got, tc.want) {
			t.Errorf("calledTools(%s) = %q, want %q", tc.body, got, tc.want)
		}
	}
}

// FuzzPeek checks calledTools on arbitrary bodies: it never panics, and it agrees with a
// reading of the same body through a generic JSON decode.
func FuzzPeek(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"my_courses","arguments":{"first":5}}}`,
		`{"jsonrpc":"2.0","id":"x","method":"tools/list","params":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}},{"jsonrpc":"2.0","method":"notifications/initialized"}]`,
		`{"method":"tools/call","params":{"name":"a","name":"b"}}`,
		`{"method":"tools\/call","params":{"name":"\u006dy_courses"}}`,
		`{"method":"tools/call","params":{"name":"a"},"method":"tools/list"}`,
		`[[{"method":"tools/call","params":{"name":"a"}}]]`,
		`{"method":"tools/call","params":{"name":null}}`,
		`  ` + strings.Repeat("[", 64),
		"\xff\xfe{}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got := calledTools(body)
		if want := genericCalls(body); !slices.Equal(got, want) {
			t.Fatalf("calledTools(%q) = %q, a generic decode says %q", body, got, want)
		}
	})
}

// genericCalls is calledTools written another way, through encoding/json's generic values.
func genericCalls(body []byte) []string {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return nil
	}
	messages, ok := v.([]any)
	if !ok {
		messages = []any{v}
	}
	var names []string
	for _, m := range messages {
		msg, _ := m.(map[string]any)
		params, _ := msg["params"].(map[string]any)
		name, _ := params["name"].(string)
		if msg["method"] == "tools/call" && name != "" {
			names = append(names, name)
		}
	}
	return names
}
