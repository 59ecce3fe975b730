package server

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/proctorhq/proctor/telemetry"
)

// TestPanicLogCarriesTraceID checks that a handler's panic is logged within the request's span:
// the line carries the trace id of the traceparent the request came with, and its request id;
// the answer is a bare 500, and the request's span records it as a failure.
func TestPanicLogCarriesTraceID(t *testing.T) {
	var buf bytes.Buffer
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	s := &Server{log: slog.New(telemetry.LogHandler(slog.NewJSONHandler(&buf, nil))), tracer: tp.Tracer("test")}
	boom := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") })
	h := s.recoverPanics(s.requestInfo(s.traceRequests("public", boom)))

	const trace = "4bf92f3577b34da6a3ce929d0e0e4736"
	req := httptest.NewRequest(http.MethodGet, "http://school.test/boom", nil)
	req.Header.Set("traceparent", "00-"+trace+"-00f067aa0ba902b7-01")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusInternalServerError {
		t.Fatalf("status %d, want 500", w.Code)
	}
	var panics []map[string]any
	for _, raw := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
		var l map[string]any
		if err := json.Unmarshal(raw, &l); err != nil {
			t.Fatalf("%v: %s", err, raw)
		}
		if l["msg"] == "panic" {
			panics = append(panics, l)
		}
	}
	if len(panics) != 1 {
		t.Fatalf("%d panic lines, want 1:\n%s", len(panics), buf.String())
	}
	if l := panics[0]; l["trace_id"] != trace || l["request_id"] != w.Header().Get("X-Request-ID") || l["panic"] != "boom" {
		t.Errorf("panic line %v, want trace_id %s and request_id %s", l, trace, w.Header().Get("X-Request-ID"))
	}
	ended := spans.Ended()
	if len(ended) != 1 || ended[0].Status().Code != codes.Error {
		t.Fatalf("spans %v, want one failed request span", ended)
	}
	for _, a := range ended[0].Attributes() {
		if a.Key == "http.response.status_code" && a.Value.AsInt64() != http.StatusInternalServerError {
			t.Errorf("request span status %v, want 500", a.Value.AsInt64())
		}
	}
}
