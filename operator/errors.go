package operator

import (
	"context"
	"errors"
	"log/slog"

	"github.com/danielgtaylor/huma/v2"

	"github.com/proctorhq/proctor/storage"
)

// problem turns a store error into an RFC 9457 problem document (huma writes them as
// application/problem+json). what names the thing the request was about, for the 404 and 409
// titles ("course", "enrollment" ...). The store's own message never reaches the client: it
// names tables and ids of the implementation and goes to the log instead.
func (h *Handler) problem(ctx context.Context, what string, err error) error {
	switch {
	case errors.Is(err, storage.ErrNotFound):
		return huma.Error404NotFound("No such " + what + " at this school.")
	case errors.Is(err, storage.ErrOwnerGrant):
		return huma.Error403Forbidden("Only an owner may grant or take the owner role.")
	case errors.Is(err, storage.ErrOwnersRoles):
		return huma.Error403Forbidden("Only an owner may change an owner's roles.")
	case errors.Is(err, storage.ErrLastOwner):
		return huma.Error409Conflict("The school would be left without an owner; make someone else owner first.")
	case errors.Is(err, storage.ErrAlreadyExists):
		return huma.Error409Conflict("The " + what + " already exists (its slug, code or key is taken).")
	case errors.Is(err, storage.ErrInvalidArgument):
		return huma.Error422UnprocessableEntity("The request is not valid for this " + what + ".")
	case errors.Is(err, storage.ErrUnavailable), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		h.log.LogAttrs(ctx, slog.LevelWarn, "operator api: store unavailable", slog.String("error", err.Error()))
		return huma.Error503ServiceUnavailable("The school's data could not be reached; retry shortly.")
	}
	h.log.LogAttrs(ctx, slog.LevelError, "operator api: store failed", slog.String("error", err.Error()))
	return huma.Error500InternalServerError("The request failed on the server.")
}

// invalid is a 422 for a rule the schema cannot express (two fields that exclude each other),
// pointing at the field as huma's own validation errors do.
func invalid(location, message string, value any) error {
	return huma.Error422UnprocessableEntity("validation failed", &huma.ErrorDetail{
		Location: location, Message: message, Value: value,
	})
}
