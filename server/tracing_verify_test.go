package server_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/scope"
	"github.com/proctorhq/proctor/server/servertest"
)

// spanWaiter keeps the spans that ended and lets a test wait for one: a request's server span
// ends after its answer is written, which the client may read first.
type spanWaiter struct {
	mu    sync.Mutex
	ended []sdktrace.ReadOnlySpan
	more  chan struct{} // closed, and replaced, when a span ends
}

func newSpanWaiter() *spanWaiter { return &spanWaiter{more: make(chan struct{})} }

func (w *spanWaiter) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (w *spanWaiter) Shutdown(context.Context) error                  { return nil }
func (w *spanWaiter) ForceFlush(context.Context) error                { return nil }
func (w *spanWaiter) OnEnd(s sdktrace.ReadOnlySpan) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ended = append(w.ended, s)
	close(w.more)
	w.more = make(chan struct{})
}

// wait returns the first ended span match accepts, waiting for it as long as the test may run.
func (w *spanWaiter) wait(t *testing.T, what string, match func(sdktrace.ReadOnlySpan) bool) sdktrace.ReadOnlySpan {
	t.Helper()
	for {
		w.mu.Lock()
		for _, s := range w.ended {
			if match(s) {
				w.mu.Unlock()
				return s
			}
		}
		more := w.more
		w.mu.Unlock()
		select {
		case <-more:
		case <-t.Context().Done():
			t.Fatalf("no span %s", what)
		}
	}
}

// inTrace returns the ended spans of trace id.
func (w *spanWaiter) inTrace(id trace.TraceID) []sdktrace.ReadOnlySpan {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []sdktrace.ReadOnlySpan
	for _, s := range w.ended {
		if s.SpanContext().TraceID() == id {
			out = append(out, s)
		}
	}
	return out
}

func spanAttr(s sdktrace.ReadOnlySpan, key string) (attribute.Value, bool) {
	for _, kv := range s.Attributes() {
		if string(kv.Key) == key {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

// TestTracingTokenVerifications checks the verifier's spans: each bearer token check of the
// Member API and UserInfo is a "verify token" span inside the request's server span (for
// UserInfo, inside the authorization server's "oauth2 userinfo" handler span), naming the
// surface and the verdict and never the token.
func TestTracingTokenVerifications(t *testing.T) {
	spans := newSpanWaiter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	e := servertest.New(t, servertest.Options{Tracing: tp})
	s := e.A
	token := e.Tokens(s, s.Student.Email, scope.OpenID, scope.AccountRead).AccessToken

	const caller = "00f067aa0ba902b7"
	for i, c := range []struct {
		method, path, token, surface, verdict string
		// between are the span names from the request span down to the verification.
		between []string
	}{
		{http.MethodPost, endpoint.MemberGraphQL, token, "graphql", "ok", nil},
		{http.MethodPost, endpoint.MemberGraphQL, "forged-token", "graphql", "invalid", nil},
		{http.MethodGet, endpoint.Userinfo, token, "userinfo", "ok", []string{"oauth2 userinfo"}},
	} {
		traceID := trace.TraceID{0x4b, 0xf9, byte(i + 1)}
		contentType, body := "", ""
		if c.method == http.MethodPost {
			contentType, body = "application/json", `{"query":"{ viewer { id } }"}`
		}
		r := e.Bearer(c.method, s.URL(c.path), c.token, contentType, body, "traceparent", "00-"+traceID.String()+"-"+caller+"-01")
		if want := map[string]int{"ok": http.StatusOK, "invalid": http.StatusUnauthorized}[c.verdict]; r.Status != want {
			t.Fatalf("%s %s: %d, want %d: %s", c.method, c.path, r.Status, want, r.Body)
		}
		request := spans.wait(t, c.method+" "+c.path, func(sp sdktrace.ReadOnlySpan) bool {
			return sp.SpanContext().TraceID() == traceID && sp.SpanKind() == trace.SpanKindServer
		})
		if request.Name() != c.method+" "+c.path || request.Parent().SpanID().String() != caller {
			t.Errorf("%s %s: request span %q, parent %s", c.method, c.path, request.Name(), request.Parent().SpanID())
		}
		var verify sdktrace.ReadOnlySpan
		byID := map[trace.SpanID]sdktrace.ReadOnlySpan{}
		for _, sp := range spans.inTrace(traceID) {
			byID[sp.SpanContext().SpanID()] = sp
			if sp.Name() == "verify token" {
				if verify != nil {
					t.Errorf("%s %s: more than one verify token span", c.method, c.path)
				}
				verify = sp
			}
			for _, kv := range sp.Attributes() {
				if strings.Contains(kv.Value.Emit(), c.token) {
					t.Errorf("%s %s: span %q carries the token in %s", c.method, c.path, sp.Name(), kv.Key)
				}
			}
		}
		if verify == nil {
			t.Fatalf("%s %s: no verify token span in the request's trace", c.method, c.path)
		}
		if v, _ := spanAttr(verify, "proctor.surface"); v.AsString() != c.surface {
			t.Errorf("%s %s: surface %q, want %q", c.method, c.path, v.AsString(), c.surface)
		}
		if v, _ := spanAttr(verify, "proctor.verdict"); v.AsString() != c.verdict {
			t.Errorf("%s %s: verdict %q, want %q", c.method, c.path, v.AsString(), c.verdict)
		}
		// The chain of parents from the verification up to the request span.
		var chain []string
		p, ok := byID[verify.Parent().SpanID()]
		for ; ok && p != request; p, ok = byID[p.Parent().SpanID()] {
			chain = append([]string{p.Name()}, chain...)
		}
		if !ok || strings.Join(chain, ",") != strings.Join(c.between, ",") {
			t.Errorf("%s %s: verify token under %v (reaching the request span: %v), want %v", c.method, c.path, chain, ok, c.between)
		}
	}
}
