package mcp_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	mcpendpoint "github.com/proctorhq/proctor/resource/mcp"
)

// lockedBuffer collects log lines written from the SDK's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// records returns the JSON log records written so far.
func (l *lockedBuffer) records(t *testing.T) []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(l.b.String()), "\n") {
		if line == "" {
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, rec)
	}
	return out
}

// TestClientMistakesAreNotErrors: a client's protocol mistake (here initialize and ping, which
// the 2026-07-28 revision removed) is the client's: the SDK's
// record of it is logged at INFO, not ERROR, so that ERROR stays for what an operator must
// act on. The records are the SDK's own, captured from the handler's logger.
func TestClientMistakesAreNotErrors(t *testing.T) {
	e := newEnv(t, "sqlite")
	var buf lockedBuffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h := mcpendpoint.New(mcpendpoint.Deps{Store: e.store, Verifier: fixedVerifier{}, Logger: log})
	srv := httptest.NewServer(inSchool(e.a, h))
	t.Cleanup(srv.Close)

	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	for _, method := range []string{"initialize", "ping"} {
		r := e.do(http.MethodPost, srv.URL+mcpendpoint.Path, "", `{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":{`+meta+`}}`,
			"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", method)
		if r.status != http.StatusNotFound || !strings.Contains(string(r.body), "-32601") {
			t.Errorf("%s in 2026-07-28: %d %s", method, r.status, r.body)
		}
	}
	var mistakes int
	for _, rec := range buf.records(t) {
		msg, _ := rec["msg"].(string)
		if rec["level"] == "ERROR" {
			t.Errorf("logged at ERROR: %v", rec)
		}
		if msg == "method removed in the new protocol" {
			mistakes++
			if rec["level"] != "INFO" {
				t.Errorf("client mistake at %v: %v", rec["level"], rec)
			}
		}
	}
	if mistakes != 2 {
		t.Errorf("%d records of the removed methods, want 2:\n%s", mistakes, buf.b.String())
	}
}
