package gormstore

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

func TestOpenSQLite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nested", "dir")
	s, err := Open(t.Context(), Config{Driver: DriverSQLite, DSN: filepath.Join(dir, "p.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("database directory not created: %v", err)
	}
	// Every connection gets the settings, not just the first.
	conn, err := s.sqlDB.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for pragma, want := range map[string]string{
		"journal_mode": "wal",
		"foreign_keys": "1",
		"busy_timeout": "10000",
		"synchronous":  "1", // NORMAL
	} {
		var got string
		if err := conn.QueryRowContext(t.Context(), "PRAGMA "+pragma).Scan(&got); err != nil {
			t.Fatalf("PRAGMA %s: %v", pragma, err)
		}
		if got != want {
			t.Errorf("PRAGMA %s = %s, want %s", pragma, got, want)
		}
	}
}

func TestOpenMemory(t *testing.T) {
	s, err := Open(t.Context(), Config{Driver: DriverSQLite, DSN: ":memory:", MaxOpenConns: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	// One connection, so that every query sees the one database that was migrated.
	if pending, err := s.PendingMigrations(t.Context()); err != nil || len(pending) != 0 {
		t.Errorf("pending after Migrate in memory: %v, %v", pending, err)
	}
}

func TestOpenRefuses(t *testing.T) {
	for name, cfg := range map[string]Config{
		"unknown driver":   {Driver: "mysql", DSN: "x"},
		"empty DSN":        {Driver: DriverSQLite},
		"sqlite options":   {Driver: DriverSQLite, DSN: filepath.Join(t.TempDir(), "p.db?_pragma=foreign_keys(0)")},
		"bad postgres DSN": {Driver: DriverPostgres, DSN: "postgres://%zz"},
	} {
		if s, err := Open(t.Context(), cfg); err == nil {
			s.Close()
			t.Errorf("%s: Open succeeded", name)
		}
	}
}

// TestSlowQueryLog checks that slow statements are reported without their bound values.
func TestSlowQueryLog(t *testing.T) {
	var buf bytes.Buffer
	s := newSQLiteStore(t)
	s.db.Logger = queryLogger{log: slog.New(slog.NewTextHandler(&buf, nil)), slow: -1} // everything is slow
	const secret = "$argon2id$secret-hash"
	if err := s.db.Exec("UPDATE members SET password_hash = ? WHERE email = ?", secret, "x@example.test").Error; err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, "slow database query") || !strings.Contains(out, "password_hash = ?") {
		t.Errorf("log lacks the statement: %s", out)
	}
	if strings.Contains(out, "secret-hash") || strings.Contains(out, "x@example.test") {
		t.Errorf("log leaks bound values: %s", out)
	}
	if !strings.Contains(out, "level=WARN") {
		t.Errorf("slow query not at warning level: %s", out)
	}

	// Fast statements are not logged at all.
	buf.Reset()
	s.db.Logger = newQueryLogger(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	if err := s.db.Exec("SELECT 1").Error; err != nil {
		t.Fatal(err)
	}
	if buf.Len() != 0 {
		t.Errorf("fast query logged: %s", buf.String())
	}
}

// TestSlowQueryLogCarriesTraceID checks that with tracing on a slow statement's log line carries
// the trace id of the context it was sent with.
func TestSlowQueryLogCarriesTraceID(t *testing.T) {
	var buf bytes.Buffer
	s := newSQLiteStore(t)
	s.db.Logger = queryLogger{log: slog.New(slog.NewJSONHandler(&buf, nil)), slow: -1} // everything is slow
	tp := sdktrace.NewTracerProvider()
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	s.TraceStatements(tp)
	ctx, span := tp.Tracer("test").Start(t.Context(), "request")
	defer span.End()
	if err := s.db.WithContext(ctx).Exec("SELECT 1").Error; err != nil {
		t.Fatal(err)
	}
	var line map[string]any
	if err := json.Unmarshal(bytes.TrimSpace(buf.Bytes()), &line); err != nil {
		t.Fatalf("%v: %s", err, buf.String())
	}
	if want := span.SpanContext().TraceID().String(); line["msg"] != "slow database query" || line["trace_id"] != want {
		t.Errorf("slow query line %v, want trace_id %s", line, want)
	}
}
