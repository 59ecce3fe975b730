package mcp

import (
	"bytes"
	"encoding/json"
)

// calledTools returns the names of the tools a JSON-RPC body calls (method "tools/call",
// params.name): one message or a batch of them, in order, repeats kept. A body that is not
// JSON-RPC, or a message that is not a tools/call with a string name, contributes nothing; the
// SDK answers those itself.
//
// It only decides the HTTP status of a call the caller may not make (401 or 403 with a
// challenge, which the SDK cannot send). It is not what keeps a tool from being called: the
// request's server has only the tools the caller may call, so a body this reading and the
// SDK's would disagree on (duplicate keys, odd casing) finds no tool to run.
func calledTools(body []byte) []string {
	body = bytes.TrimSpace(body)
	var messages []json.RawMessage
	switch {
	case len(body) == 0:
		return nil
	case body[0] == '[':
		if json.Unmarshal(body, &messages) != nil {
			return nil
		}
	default:
		messages = []json.RawMessage{body}
	}
	var names []string
	for _, m := range messages {
		// Maps rather than structs: encoding/json matches struct fields case-insensitively,
		// and JSON-RPC member names are case-sensitive.
		var msg map[string]json.RawMessage
		if json.Unmarshal(m, &msg) != nil {
			continue
		}
		var method string
		if json.Unmarshal(msg["method"], &method) != nil || method != "tools/call" {
			continue
		}
		var params map[string]json.RawMessage
		if json.Unmarshal(msg["params"], &params) != nil {
			continue
		}
		var name string
		if json.Unmarshal(params["name"], &name) != nil || name == "" {
			continue
		}
		names = append(names, name)
	}
	return names
}
