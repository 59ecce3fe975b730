package mcp

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// TestLowerMistakesKeepsLevels: behind a logger at WARN, a lowered client mistake is dropped
// and the SDK's other errors still pass, with their attributes and groups.
func TestLowerMistakesKeepsLevels(t *testing.T) {
	var buf bytes.Buffer
	log := sdkLogger(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn}))).
		With("component", "sdk").WithGroup("g")
	log.Error("method removed in the new protocol", "method", "initialize")
	log.Error("server connect failed", "error", "boom")
	log.Info("server connecting")
	got := buf.String()
	if strings.Contains(got, "method removed") || strings.Contains(got, "server connecting") {
		t.Errorf("logged below WARN:\n%s", got)
	}
	if !strings.Contains(got, "level=ERROR") || !strings.Contains(got, `msg="server connect failed"`) ||
		!strings.Contains(got, "component=sdk") || !strings.Contains(got, "g.error=boom") {
		t.Errorf("an SDK error was lost or changed:\n%s", got)
	}
}
