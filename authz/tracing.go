package authz

import (
	"context"
	"net/http"

	"github.com/ory/fosite"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// traced runs an endpoint's handler, fosite's work and the statements it sends inside a span of
// its own (docs/tracing.md). Without a tracer the handler is returned as it is.
func (h *Handler) traced(name string, next http.Handler) http.Handler {
	if h.tracer == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, span := h.tracer.Start(r.Context(), name)
		defer span.End()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// spanGrant records the token request's grant type on its span.
func (h *Handler) spanGrant(ctx context.Context, grantType string) {
	if h.tracer != nil {
		trace.SpanFromContext(ctx).SetAttributes(attribute.String("oauth.grant_type", grantType))
	}
}

// spanError records the OAuth error an endpoint answered with on its span; a server error
// marks the span failed. Only the error code: descriptions can quote what the client sent.
func (h *Handler) spanError(ctx context.Context, e *fosite.RFC6749Error) {
	if h.tracer == nil {
		return
	}
	span := trace.SpanFromContext(ctx)
	span.SetAttributes(attribute.String("oauth.error", e.ErrorField))
	if e.CodeField >= http.StatusInternalServerError {
		span.SetStatus(codes.Error, e.ErrorField)
	}
}
