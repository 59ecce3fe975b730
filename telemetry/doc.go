// Package telemetry starts OpenTelemetry tracing and ties the log to it (docs/tracing.md).
//
// Tracing is off unless the server file names an OTLP/HTTP collector (telemetry.otlp_endpoint).
// Off, Start returns a nil *Provider: no exporter, no batching goroutine, and every package that
// can trace takes a nil trace.Tracer (or TracerProvider) and does nothing but check for nil, so
// the hot paths (token verification, the token endpoint, every SQL statement) cost what they did
// before tracing existed.
//
// On, spans are batched and POSTed as protobuf to the collector's /v1/traces. LogHandler wraps
// the server's slog handler so that every line logged with a request's context carries the
// request's trace_id and span_id, and a log line can be found from a trace and the reverse.
package telemetry
