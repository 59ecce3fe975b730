package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

func TestStartRefusesWhatIsNotAnHTTPURL(t *testing.T) {
	for _, endpoint := range []string{"collector:4318", "grpc://collector:4317", "http://"} {
		if p, err := Start(endpoint, "test"); err == nil || p != nil {
			t.Errorf("Start(%q) = %v, %v", endpoint, p, err)
		}
	}
}

func TestLogHandlerAddsTheRecordingSpansIDs(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(LogHandler(slog.NewJSONHandler(&buf, nil))).With("component", "test")
	tp := sdktrace.NewTracerProvider()
	defer func() { _ = tp.Shutdown(context.Background()) }()
	ctx, span := tp.Tracer("test").Start(context.Background(), "op")
	log.InfoContext(ctx, "inside")
	span.End()
	log.InfoContext(ctx, "after the span ended")
	log.InfoContext(trace.ContextWithSpanContext(context.Background(), span.SpanContext()), "remote parent only")
	log.Info("no context")

	var lines []map[string]any
	for _, l := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, m)
	}
	if len(lines) != 4 {
		t.Fatalf("%d lines", len(lines))
	}
	sc := span.SpanContext()
	if lines[0]["trace_id"] != sc.TraceID().String() || lines[0]["span_id"] != sc.SpanID().String() || lines[0]["component"] != "test" {
		t.Errorf("line in the span: %v", lines[0])
	}
	for _, l := range lines[1:] {
		if _, ok := l["trace_id"]; ok {
			t.Errorf("line outside a recording span has a trace id: %v", l)
		}
	}
}
