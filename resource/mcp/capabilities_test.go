package mcp_test

import (
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestOnlyDeclaredCapabilities: the server declares tools and nothing else, so the methods of
// prompts, resources, logging and completion are unknown to it (JSON-RPC -32601), in every
// revision served, for anonymous and member callers alike. The SDK answered them with empty
// lists and accepted a log level (conformance: sep-2575-server-declares-prompts-in-discover).
func TestOnlyDeclaredCapabilities(t *testing.T) {
	e := newEnv(t, "sqlite")
	token := e.Token(e.A, studentEmail, bothScopes)
	for _, v := range []string{"2025-06-18", "2025-11-25", "2026-07-28"} {
		for _, tok := range []string{"", token} {
			cs := e.connect(e.A, tok, v)
			caps := cs.InitializeResult().Capabilities
			if caps.Tools == nil || caps.Prompts != nil || caps.Resources != nil || caps.Logging != nil || caps.Completions != nil {
				t.Errorf("%s: capabilities %+v, want tools only", v, caps)
			}
			ctx := t.Context()
			for method, call := range map[string]func() error{
				"prompts/list":             func() error { _, err := cs.ListPrompts(ctx, nil); return err },
				"prompts/get":              func() error { _, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "x"}); return err },
				"resources/list":           func() error { _, err := cs.ListResources(ctx, nil); return err },
				"resources/templates/list": func() error { _, err := cs.ListResourceTemplates(ctx, nil); return err },
				"resources/read":           func() error { _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "file:///x"}); return err },
				"logging/setLevel":         func() error { return cs.SetLoggingLevel(ctx, &sdk.SetLoggingLevelParams{Level: "debug"}) },
				"completion/complete": func() error {
					_, err := cs.Complete(ctx, &sdk.CompleteParams{
						Ref:      &sdk.CompleteReference{Type: "ref/prompt", Name: "x"},
						Argument: sdk.CompleteParamsArgument{Name: "a", Value: "b"},
					})
					return err
				},
			} {
				if method == "logging/setLevel" && v == "2026-07-28" {
					// Removed in that revision: the SDK's client cannot send it, and the SDK's
					// server answers it with -32601 itself.
					continue
				}
				var werr *jsonrpc.Error
				if err := call(); !errors.As(err, &werr) || werr.Code != jsonrpc.CodeMethodNotFound {
					t.Errorf("%s, %s (token %t): %v, want method not found", v, method, tok != "", err)
				}
			}
			// What is declared is served.
			if _, err := cs.ListTools(ctx, nil); err != nil {
				t.Errorf("%s: tools/list: %v", v, err)
			}
		}
	}
}
