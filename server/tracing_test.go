package server_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/scope"
	"github.com/proctorhq/proctor/server/servertest"
	"github.com/proctorhq/proctor/storage/gormstore/storetest"
	"github.com/proctorhq/proctor/telemetry"
)

// otlpReceiver is an OTLP/HTTP collector on loopback: it decodes every protobuf
// ExportTraceServiceRequest POSTed to /v1/traces and keeps the spans.
type otlpReceiver struct {
	*httptest.Server
	mu       sync.Mutex
	spans    []*tracepb.Span
	requests int
}

func newOTLPReceiver(t *testing.T) *otlpReceiver {
	t.Helper()
	rec := &otlpReceiver{}
	rec.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
			t.Errorf("otlp receiver: %s %s (%s)", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
			http.Error(w, "unexpected request", http.StatusBadRequest)
			return
		}
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			gz, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			body = gz
		}
		raw, err := io.ReadAll(body)
		var req coltracepb.ExportTraceServiceRequest
		if err == nil {
			err = proto.Unmarshal(raw, &req)
		}
		if err != nil {
			t.Errorf("otlp receiver: %v", err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		rec.mu.Lock()
		rec.requests++
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				rec.spans = append(rec.spans, ss.Spans...)
			}
		}
		rec.mu.Unlock()
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	t.Cleanup(rec.Close)
	return rec
}

// received returns the spans so far and how many export requests brought them.
func (rec *otlpReceiver) received() ([]*tracepb.Span, int) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]*tracepb.Span(nil), rec.spans...), rec.requests
}

func attr(s *tracepb.Span, key string) *commonpb.AnyValue {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			return kv.Value
		}
	}
	return nil
}

// The traceparent the token request is sent with: the test is the caller whose trace the
// server joins.
const (
	callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	callerSpan  = "00f067aa0ba902b7"
	// signInTrace is the trace of the failed sign-in.
	signInTrace = "0af7651916cd43dd8448eb211c80319c"
)

func TestTracingCodeExchange(t *testing.T) {
	for _, backend := range storetest.Backends() {
		t.Run(backend, func(t *testing.T) {
			rec := newOTLPReceiver(t)
			p, err := telemetry.Start(rec.URL, "test")
			if err != nil || p == nil {
				t.Fatalf("telemetry.Start(%s) = %v, %v", rec.URL, p, err)
			}
			t.Cleanup(func() { _ = p.Shutdown(context.Background()) })
			e := servertest.New(t, servertest.Options{Backend: backend, Tracing: p.TracerProvider()})
			s, c := e.A, e.A.MemberClient
			code, pkce := e.Code(s, s.Student.Email, c, scope.OpenID, scope.AccountRead)
			form := url.Values{
				"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {c.RedirectURI},
				"client_id": {c.ID}, "code_verifier": {pkce.Verifier}, "resource": {s.Origin},
			}
			r := e.Send(http.MethodPost, s.URL(endpoint.Token), form, "traceparent", "00-"+callerTrace+"-"+callerSpan+"-01")
			if r.Status != http.StatusOK {
				t.Fatalf("token request: %d %s", r.Status, r.Body)
			}

			// The request's server span ends once its answer is written, which the client may
			// see first: flush until it has arrived, for as long as the test run may last.
			var spans []*tracepb.Span
			var root *tracepb.Span
			deadline, ok := t.Deadline()
			if !ok {
				deadline = time.Now().Add(time.Hour)
			}
			for root == nil && time.Now().Before(deadline) {
				if err := p.ForceFlush(t.Context()); err != nil {
					t.Fatalf("ForceFlush: %v", err)
				}
				spans, _ = rec.received()
				for _, sp := range spans {
					if hex.EncodeToString(sp.TraceId) == callerTrace && sp.Name == "POST "+endpoint.Token {
						root = sp
					}
				}
				if root == nil {
					time.Sleep(20 * time.Millisecond)
				}
			}
			if root == nil {
				t.Fatalf("no span POST %s in trace %s among %d spans", endpoint.Token, callerTrace, len(spans))
			}
			if got := hex.EncodeToString(root.ParentSpanId); got != callerSpan {
				t.Errorf("the request span's parent is %q, want the caller's %s", got, callerSpan)
			}
			if root.Kind != tracepb.Span_SPAN_KIND_SERVER {
				t.Errorf("request span kind %v", root.Kind)
			}
			if v := attr(root, "http.response.status_code"); v.GetIntValue() != http.StatusOK {
				t.Errorf("request span status %v", v)
			}
			if v := attr(root, "http.route"); v.GetStringValue() != endpoint.Token {
				t.Errorf("request span route %v", v)
			}
			if v := attr(root, "proctor.school_id"); v.GetIntValue() != s.SchoolID {
				t.Errorf("request span school %v, want %d", v, s.SchoolID)
			}

			var token *tracepb.Span
			for _, sp := range spans {
				if sp.Name == "oauth2 token" && bytes.Equal(sp.ParentSpanId, root.SpanId) {
					token = sp
				}
			}
			if token == nil {
				t.Fatalf("no oauth2 token span under the request span")
			}
			if v := attr(token, "oauth.grant_type"); v.GetStringValue() != "authorization_code" {
				t.Errorf("token span grant type %v", v)
			}
			// fosite's own spans (Fosite.NewAccessRequest ...) sit between the token span and
			// the statements.
			byID := map[string]*tracepb.Span{}
			for _, sp := range spans {
				byID[string(sp.SpanId)] = sp
			}
			under := func(sp, ancestor *tracepb.Span) bool {
				for p := byID[string(sp.ParentSpanId)]; p != nil; p = byID[string(p.ParentSpanId)] {
					if p == ancestor {
						return true
					}
				}
				return false
			}
			// fosite traces its handlers with the provider of the span it is given: its request
			// and response handlers of the exchange are in the tree, under the token span.
			for _, name := range []string{"Fosite.NewAccessRequest", "Fosite.NewAccessResponse"} {
				found := false
				for _, sp := range spans {
					found = found || (sp.Name == name && under(sp, token))
				}
				if !found {
					t.Errorf("no span %s under the token span", name)
				}
			}
			var sql []*tracepb.Span
			for _, sp := range spans {
				if attr(sp, "db.operation.name") != nil && under(sp, token) {
					sql = append(sql, sp)
				}
			}
			if len(sql) == 0 {
				for _, sp := range spans {
					t.Logf("%s %x parent %x", sp.Name, sp.SpanId, sp.ParentSpanId)
				}
				t.Fatal("no SQL statement span under the token span")
			}
			tables := map[string]bool{}
			for _, sp := range sql {
				tables[attr(sp, "db.collection.name").GetStringValue()] = true
				if !bytes.Equal(sp.TraceId, root.TraceId) {
					t.Errorf("SQL span %q in another trace", sp.Name)
				}
				for _, kv := range sp.Attributes {
					if strings.Contains(kv.Value.String(), code) || strings.Contains(kv.Value.String(), pkce.Verifier) {
						t.Errorf("SQL span %q carries a bound value in %s", sp.Name, kv.Key)
					}
				}
			}
			// The code is spent in the exchange (on PostgreSQL, the first table of a WITH).
			if !tables["oauth_authorization_codes"] {
				t.Errorf("SQL spans under the token span name no grant table: %v (%d spans)", tables, len(sql))
			}
			t.Logf("%s: %d SQL spans under the token span, tables %v", backend, len(sql), tables)

			// A line another package logs while serving a traced request carries its trace id
			// too: a failed sign-in's, from the sign-in pages.
			b := e.Browser()
			page := b.Get(s.Origin + login.LoginPath)
			f, ok := page.FormWith("password")
			if !ok {
				t.Fatalf("no sign-in form (status %d)", page.Status)
			}
			f.Values.Set("email", s.Student.Email)
			f.Values.Set("password", "not the password")
			if r := b.Do(e.Request(http.MethodPost, f.Action, f.Values, "traceparent", "00-"+signInTrace+"-"+callerSpan+"-01")); r.Status != http.StatusOK {
				t.Fatalf("failed sign-in: %d", r.Status)
			}

			var logged, signInLogged bool
			for _, l := range e.Log.Records(t) {
				if l["msg"] == "request" && l["route"] == endpoint.Token {
					logged = true
					if l["trace_id"] != callerTrace || l["span_id"] != hex.EncodeToString(root.SpanId) {
						t.Errorf("token request's log line has trace_id %v span_id %v, want %s %x", l["trace_id"], l["span_id"], callerTrace, root.SpanId)
					}
				}
				if l["msg"] == "sign-in failed" {
					signInLogged = true
					if l["trace_id"] != signInTrace {
						t.Errorf("failed sign-in's log line has trace_id %v, want %s: %v", l["trace_id"], signInTrace, l)
					}
				}
			}
			if !logged {
				t.Error("no log line for the token request")
			}
			if !signInLogged {
				t.Error("no log line for the failed sign-in")
			}
		})
	}
}

func TestTracingOff(t *testing.T) {
	rec := newOTLPReceiver(t)
	// The SDK's own environment variables must not turn tracing on: only the server file does.
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rec.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", rec.URL+"/v1/traces")
	p, err := telemetry.Start("", "test")
	if p != nil || err != nil || p.TracerProvider() != nil {
		t.Fatalf("telemetry.Start(\"\") = %v, %v", p, err)
	}
	if err := p.ForceFlush(t.Context()); err != nil {
		t.Fatal(err)
	}
	e := servertest.New(t, servertest.Options{Tracing: p.TracerProvider()})
	tokens := e.Tokens(e.A, e.A.Student.Email, scope.OpenID, scope.AccountRead)
	if tokens.AccessToken == "" {
		t.Fatal("no access token")
	}
	if _, n := rec.received(); n != 0 {
		t.Errorf("%d export requests with tracing off", n)
	}
	for _, l := range e.Log.Records(t) {
		if _, ok := l["trace_id"]; ok {
			t.Fatalf("log line with a trace id with tracing off: %v", l)
		}
	}
	buf := make([]byte, 1<<20)
	stacks := string(buf[:runtime.Stack(buf, true)])
	if strings.Contains(stacks, "go.opentelemetry.io/otel/sdk") || strings.Contains(stacks, "otlptrace") {
		t.Errorf("an OpenTelemetry goroutine runs with tracing off:\n%s", stacks)
	}
	if err := p.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
}
