package main

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
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
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
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

	root := t.TempDir()
	dir := filepath.Join(root, "schools")
	os.MkdirAll(dir, 0o755)
	const host = "127.0.0.1:18091"
	writeSchool(t, dir, "a.yaml", 1, host)
	ports := freePorts(t, 2)
	server := filepath.Join(root, "proctor.yaml")
	secret := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte("t"), 32))
	os.WriteFile(server, []byte(fmt.Sprintf("public: {addr: %q}\ninternal: {addr: %q}\ndatabase: {driver: sqlite, dsn: %s}\nschools_dir: %s\nsecret: %s\nlog: {level: info, format: text}\ntelemetry: {otlp_endpoint: %q}\n",
		ports[0], ports[1], filepath.Join(root, "p.db"), dir, secret, collector.URL)), 0o600)

	p := startServeProcess(t, server, ports[0])
	p.answers(host)
	req, _ := http.NewRequest(http.MethodGet, "http://"+p.public+"/.well-known/openid-configuration", nil)
	req.Host = host
	req.Header.Set("traceparent", "00-"+callerTrace+"-00f067aa0ba902b7-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("discovery: %d", resp.StatusCode)
	}

	// Stopping exports the spans not yet sent.
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-p.exited
	mu.Lock()
	names := traces[callerTrace]
	mu.Unlock()
	if want := "GET /.well-known/openid-configuration"; !slices.Contains(names, want) {
		t.Errorf("spans exported in the caller's trace: %q, want %q among them", names, want)
	}
	if !strings.Contains(p.out.String(), "trace_id="+callerTrace) {
		t.Errorf("no log line with the caller's trace id:\n%s", p.out.String())
	}
}
