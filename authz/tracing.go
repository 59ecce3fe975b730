package authz

import (
	"context"
	"net/http"

	"github.com/ory/fosite"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

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
