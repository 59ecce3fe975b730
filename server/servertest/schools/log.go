package schools

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// LogBuffer is a goroutine-safe buffer a server's log is written to.
type LogBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// NewLog is a logger writing every level as JSON lines into a new LogBuffer.
func NewLog() (*LogBuffer, *slog.Logger) {
	l := &LogBuffer{}
	return l, slog.New(slog.NewJSONHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// Write implements io.Writer.
func (l *LogBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// String returns everything logged so far.
func (l *LogBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// Lines returns the log lines so far.
func (l *LogBuffer) Lines() []string {
	return strings.FieldsFunc(l.String(), func(r rune) bool { return r == '\n' })
}

// Records returns the JSON log records so far; a line that is not a JSON object fails t.
func (l *LogBuffer) Records(t testing.TB) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range l.Lines() {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, rec)
	}
	return out
}
