package mcp_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/endpoint"
	mcpendpoint "github.com/proctorhq/proctor/resource/mcp"
	"github.com/proctorhq/proctor/server/servertest"
)

// TestClientMistakesAreNotErrors: a client's protocol mistake (here initialize and ping, which
// the 2026-07-28 revision removed) is the client's: the SDK's
// record of it is logged at INFO, not ERROR, so that ERROR stays for what an operator must
// act on. The records are the SDK's own, captured from the handler's logger.
func TestClientMistakesAreNotErrors(t *testing.T) {
	e := newEnv(t, "sqlite")
	var buf servertest.LogBuffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h := mcpendpoint.New(mcpendpoint.Deps{Store: e.Store, Verifier: fixedVerifier{}, Logger: log})
	srv := httptest.NewServer(inSchool(e.A, h))
	t.Cleanup(srv.Close)

	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	for _, method := range []string{"initialize", "ping"} {
		r := e.do(http.MethodPost, srv.URL+endpoint.MCP, "", `{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":{`+meta+`}}`,
			"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", method)
		if r.status != http.StatusNotFound || !strings.Contains(string(r.body), "-32601") {
			t.Errorf("%s in 2026-07-28: %d %s", method, r.status, r.body)
		}
	}
	var mistakes int
	for _, rec := range buf.Records(t) {
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
		t.Errorf("%d records of the removed methods, want 2:\n%s", mistakes, buf.String())
	}
}
