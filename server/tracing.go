package server

import (
	"context"
	"net/http"

	"github.com/felixge/httpsnoop"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/mail"
	"github.com/proctorhq/proctor/resource"
	"github.com/proctorhq/proctor/telemetry"
)

// traceRequests gives each request a server span (docs/tracing.md), the child of the trace a
// caller names in its traceparent header, else a new trace's root. It is named after the route
// template, once the router has matched one, never after the raw path. It runs inside
// requestInfo, for the route, and outside observe, so that the request's log line carries the
// span's trace id; a panic is recovered within the span, so that its log line carries the trace
// id and the span records the 500. Without a tracer it is not in the chain at all.
func (s *Server) traceRequests(listener string, next http.Handler) http.Handler {
	if s.tracer == nil {
		return next
	}
	spanned := telemetry.Handler(s.tracer, "request", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		span := trace.SpanFromContext(r.Context())
		span.SetAttributes(attribute.String("http.request.method", r.Method), attribute.String("proctor.listener", listener),
			attribute.String("proctor.request_id", edge.FromContext(r.Context()).ID))
		m := httpsnoop.CaptureMetrics(s.recoverPanics(next), w, r)
		route := edge.FromContext(r.Context()).Route
		if route == "" {
			route = "unmatched"
		}
		span.SetName(r.Method + " " + route)
		span.SetAttributes(attribute.String("http.route", route), attribute.Int("http.response.status_code", m.Code))
		if m.Code >= http.StatusInternalServerError {
			span.SetStatus(codes.Error, http.StatusText(m.Code))
		}
	}), trace.WithSpanKind(trace.SpanKindServer))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := telemetry.Propagator.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		spanned.ServeHTTP(w, r.WithContext(ctx))
	})
}

// spanSchool records the school a request was resolved to on its span.
func (s *Server) spanSchool(ctx context.Context, id int64) {
	if s.tracer != nil {
		trace.SpanFromContext(ctx).SetAttributes(attribute.Int64("proctor.school_id", id))
	}
}

// tracedVerifier gives each bearer token verification a span with the surface that asked and the
// verifier's verdict (ok, or the kind of refusal); never the token.
type tracedVerifier struct {
	resource.Verifier
	surface string
	tracer  trace.Tracer
}

// traceVerifier wraps v when tracing is on.
func (s *Server) traceVerifier(surface string, v resource.Verifier) resource.Verifier {
	if s.tracer == nil {
		return v
	}
	return tracedVerifier{Verifier: v, surface: surface, tracer: s.tracer}
}

func (v tracedVerifier) Verify(ctx context.Context, token string) (resource.Grant, error) {
	ctx, span := v.tracer.Start(ctx, "verify token", trace.WithAttributes(attribute.String("proctor.surface", v.surface)))
	defer span.End()
	g, err := v.Verifier.Verify(ctx, token)
	verdict := resource.VerdictOK
	if err != nil {
		verdict = resource.RefusalKindOf(err).String()
	}
	span.SetAttributes(attribute.String("proctor.verdict", verdict))
	return g, err
}

// ObserveVerdict records a door's verdict (which may refuse a token the verifier accepted: a
// missing scope or role) on the request's span, and passes it on to the verifier within.
func (v tracedVerifier) ObserveVerdict(ctx context.Context, verdict string) {
	trace.SpanFromContext(ctx).SetAttributes(attribute.String("proctor.surface", v.surface), attribute.String("proctor.door.verdict", verdict))
	if o, ok := v.Verifier.(resource.VerdictObserver); ok {
		o.ObserveVerdict(ctx, verdict)
	}
}

// door is the Verifier of a door-guarded surface: counted (metrics) and traced.
func (s *Server) door(surface string, v resource.Verifier) resource.Verifier {
	return s.traceVerifier(surface, s.metrics.app.doorVerifier(surface, v))
}

// tracedSender gives each message the mail worker sends a span of its own: the worker runs
// outside any request, so each send is the root of its trace. The span names the school and the
// kind of message, never the recipient.
type tracedSender struct {
	mail.Sender
	tracer trace.Tracer
}

// traceSender wraps m when tracing is on.
func (s *Server) traceSender(m mail.Sender) mail.Sender {
	if s.tracer == nil {
		return m
	}
	return tracedSender{Sender: m, tracer: s.tracer}
}

func (t tracedSender) Send(ctx context.Context, id int64, m mail.Message) error {
	ctx, span := t.tracer.Start(ctx, "send mail", trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		attribute.Int64("proctor.school_id", m.SchoolID), attribute.String("proctor.mail.kind", m.Kind),
		attribute.Int64("proctor.mail.outbox_id", id)))
	defer span.End()
	err := t.Sender.Send(ctx, id, m)
	if err != nil {
		span.SetStatus(codes.Error, "send failed")
	}
	return err
}
