package server_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/server/servertest"
)

// TestDocumentLookupObserved checks that the server's own metadata document resolver reports
// its lookups: an authorization request naming a document the school may fetch, on a host
// where nothing listens, is counted as a failed lookup on /metrics and traced as a "client
// metadata document" span with that result inside the authorize handler's span.
func TestDocumentLookupObserved(t *testing.T) {
	spans := newSpanWaiter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	e := servertest.New(t, servertest.Options{Tracing: tp, ConfigureSchool: func(c *config.School) {
		c.CIMD.AllowedHosts = []string{"127.0.0.1"}
		c.CIMD.AllowPrivateNetworks = true
	}})
	s := e.A
	const failed = `proctor_cimd_fetches_total{result="failed"}`
	before := scrape(t, e)[failed]

	// Port 1 on loopback: the connection is refused, whatever runs on the machine.
	clientID := "https://127.0.0.1:1/client.json"
	p := servertest.NewPKCE()
	q := url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {"http://127.0.0.1/callback"},
		"scope": {"openid"}, "state": {"state-0123456789"}, "code_challenge": {p.Challenge}, "code_challenge_method": {"S256"},
		"resource": {s.Origin}}
	r := e.Send(http.MethodGet, s.URL(endpoint.Authorize)+"?"+q.Encode(), nil)
	if r.Status != http.StatusBadRequest {
		t.Fatalf("an unreachable document's client: %d %s, want 400", r.Status, r.Body)
	}
	if got := scrape(t, e)[failed] - before; got != 1 {
		t.Errorf("%s moved by %v, want 1", failed, got)
	}
	lookup := spans.wait(t, "client metadata document", func(sp sdktrace.ReadOnlySpan) bool {
		return sp.Name() == "client metadata document"
	})
	if v, _ := spanAttr(lookup, "proctor.cimd.result"); v.AsString() != "failed" {
		t.Errorf("lookup span result %q, want failed", v.AsString())
	}
	if v, _ := spanAttr(lookup, "server.address"); v.AsString() != "127.0.0.1" {
		t.Errorf("lookup span host %q", v.AsString())
	}
	authorize := spans.wait(t, "oauth2 authorize", func(sp sdktrace.ReadOnlySpan) bool {
		return sp.Name() == "oauth2 authorize" && sp.SpanContext().TraceID() == lookup.SpanContext().TraceID()
	})
	if lookup.Parent().SpanID() != authorize.SpanContext().SpanID() {
		t.Errorf("the lookup span's parent is %s, not the authorize handler's span %s", lookup.Parent().SpanID(), authorize.SpanContext().SpanID())
	}
}
