package main

import (
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// TestServeExportsTraces: `proctor serve` with telemetry.otlp_endpoint in its server file sends
// the spans of the requests it serves to that OTLP/HTTP collector, at the latest when it stops;
// a request sent with a traceparent is exported in the caller's trace, and its log line carries
// the trace id.
func TestServeExportsTraces(t *testing.T) {
	const callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	var (
		mu     sync.Mutex
		traces = map[string][]string{} // trace id: span names
	)
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var req coltracepb.ExportTraceServiceRequest
		if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" || proto.Unmarshal(raw, &req) != nil {
			t.Errorf("collector: %s %s (%s), %d bytes", r.Method, r.URL.Path, r.Header.Get("Content-Type"), len(raw))
			http.Error(w, "unexpected", http.StatusBadRequest)
			return
		}
		mu.Lock()
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, sp := range ss.Spans {
					id := hex.EncodeToString(sp.TraceId)
					traces[id] = append(traces[id], sp.Name)
				}
			}
		}
		mu.Unlock()
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	t.Cleanup(collector.Close)

	const host = "127.0.0.1:18091"
	p, _ := serveOneSchool(t, host, fmt.Sprintf("telemetry: {otlp_endpoint: %q}\n", collector.URL))
	traceparent := http.Header{"Traceparent": {"00-" + callerTrace + "-00f067aa0ba902b7-01"}}
	if code, body := p.get(host, "/.well-known/openid-configuration", traceparent); code != http.StatusOK {
		t.Fatalf("discovery: %d %s", code, body)
	}

	// Stopping exports the spans not yet sent.
	if err := p.proc.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-p.proc.Done()
	mu.Lock()
	names := traces[callerTrace]
	mu.Unlock()
	if want := "GET /.well-known/openid-configuration"; !slices.Contains(names, want) {
		t.Errorf("spans exported in the caller's trace: %q, want %q among them", names, want)
	}
	if !strings.Contains(p.output(), "trace_id="+callerTrace) {
		t.Errorf("no log line with the caller's trace id:\n%s", p.output())
	}
}
