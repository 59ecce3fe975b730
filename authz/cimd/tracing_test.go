package cimd

import (
	"context"
	"net/http"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/proctorhq/proctor/server/servertest/schools"
)

// TestLookupSpans checks the metadata document lookups' spans: each lookup of a permitted host
// is a client span inside the caller's span, naming the document's host and the lookup's
// result, fetched or served from the cache.
func TestLookupSpans(t *testing.T) {
	ca := newTestCA(t)
	s := newDocServer(t, ca)
	s.handle("/client.json", serveDoc(nil))
	s.handle("/invalid.json", serveDoc(func(m map[string]any) { m["client_id"] = "https://elsewhere.example/c.json" }))
	s.handle("/gone.json", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "gone", http.StatusGone) })
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	d := New(nil, Options{RootCAs: ca.Pool, Now: newClock().Now, Resolver: schools.StaticResolver("127.0.0.1"), Tracer: tp.Tracer("test")})

	ctx, parent := tp.Tracer("test").Start(t.Context(), "caller")
	ts := testSchool(devPolicy())
	for _, path := range []string{"/client.json", "/client.json", "/gone.json", "/invalid.json"} {
		_, _ = d.Resolve(ctx, ts, s.url(path))
	}
	// A host the school does not permit is no lookup: no span.
	_, _ = d.Resolve(ctx, ts, "https://not-permitted.example/c.json")
	parent.End()

	want := []FetchResult{FetchOK, FetchCached, FetchFailed, FetchInvalid}
	var got []string
	for _, sp := range rec.Ended() {
		if sp.Name() != "client metadata document" {
			continue
		}
		attrs := map[string]string{}
		for _, kv := range sp.Attributes() {
			attrs[string(kv.Key)] = kv.Value.Emit()
		}
		got = append(got, attrs["proctor.cimd.result"])
		if sp.SpanKind() != trace.SpanKindClient || sp.Parent().SpanID() != parent.SpanContext().SpanID() || attrs["server.address"] != "127.0.0.1" {
			t.Errorf("span kind %v, parent %v, attributes %v; want a client span under the caller's naming 127.0.0.1", sp.SpanKind(), sp.Parent().SpanID(), attrs)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("lookup spans with results %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != string(want[i]) {
			t.Errorf("lookup spans with results %q, want %q", got, want)
			break
		}
	}
}
