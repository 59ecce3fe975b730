package telemetry

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	sdkresource "go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// ServiceName names the service in every exported span's resource.
const ServiceName = "proctor"

// exportTimeout bounds one export POST, so that a collector that hangs cannot hold a shutdown.
const exportTimeout = 10 * time.Second

// Provider is the running tracer provider. A nil *Provider is tracing turned off; its methods
// do nothing.
type Provider struct {
	sdk *sdktrace.TracerProvider
}

// Start builds the exporter and the tracer provider for an OTLP/HTTP collector at endpoint (a
// base URL such as http://collector:4318; spans go to its /v1/traces). An empty endpoint
// returns nil: tracing is off and nothing is started.
func Start(endpoint, version string) (*Provider, error) {
	if endpoint == "" {
		return nil, nil
	}
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("telemetry: the OTLP endpoint must be an http(s) URL")
	}
	opts := []otlptracehttp.Option{otlptracehttp.WithEndpoint(u.Host), otlptracehttp.WithTimeout(exportTimeout),
		otlptracehttp.WithURLPath(joinPath(u.Path, "/v1/traces"))}
	if u.Scheme == "http" {
		opts = append(opts, otlptracehttp.WithInsecure())
	}
	// New only builds the client: nothing is sent until the first batch.
	exp, err := otlptracehttp.New(context.Background(), opts...)
	if err != nil {
		return nil, err
	}
	res := sdkresource.NewSchemaless(attribute.String("service.name", ServiceName), attribute.String("service.version", version))
	return &Provider{sdk: sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))}, nil
}

func joinPath(base, p string) string {
	for len(base) > 0 && base[len(base)-1] == '/' {
		base = base[:len(base)-1]
	}
	return base + p
}

// TracerProvider is what instrumented packages take; nil when tracing is off.
func (p *Provider) TracerProvider() trace.TracerProvider {
	if p == nil {
		return nil
	}
	return p.sdk
}

// ForceFlush exports every span ended so far.
func (p *Provider) ForceFlush(ctx context.Context) error {
	if p == nil {
		return nil
	}
	return p.sdk.ForceFlush(ctx)
}

// Shutdown exports what is left and stops the exporter.
func (p *Provider) Shutdown(ctx context.Context) error {
	if p == nil {
		return nil
	}
	return p.sdk.Shutdown(ctx)
}

// Tracer returns tp's tracer for an instrumentation scope, or nil when tp is nil.
func Tracer(tp trace.TracerProvider, scope string) trace.Tracer {
	if tp == nil {
		return nil
	}
	return tp.Tracer(scope)
}

// Propagator reads and writes W3C traceparent and tracestate headers.
var Propagator propagation.TextMapPropagator = propagation.TraceContext{}

// Fail marks span as failed with a short description (never a token or a bound value).
func Fail(span trace.Span, description string) {
	span.SetStatus(codes.Error, description)
}

// LogHandler wraps h so that each record logged with a context whose span is recording gets
// trace_id and span_id attributes.
func LogHandler(h slog.Handler) slog.Handler { return logHandler{h} }

type logHandler struct{ slog.Handler }

func (l logHandler) Handle(ctx context.Context, r slog.Record) error {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() && trace.SpanFromContext(ctx).IsRecording() {
		r = r.Clone()
		r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
	}
	return l.Handler.Handle(ctx, r)
}

func (l logHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return logHandler{l.Handler.WithAttrs(attrs)}
}

func (l logHandler) WithGroup(name string) slog.Handler { return logHandler{l.Handler.WithGroup(name)} }

// Handler runs next inside a span named name that tracer starts from the request's context; with
// a nil tracer it is next itself, so that an untraced server has nothing more in its chain.
func Handler(tracer trace.Tracer, name string, next http.Handler, opts ...trace.SpanStartOption) http.Handler {
	if tracer == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, span := tracer.Start(r.Context(), name, opts...)
		defer span.End()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}
