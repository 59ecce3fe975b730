package graphql

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	gql "github.com/graph-gophers/graphql-go"
	gqlerrors "github.com/graph-gophers/graphql-go/errors"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/proctorhq/proctor/storage"
)

// Codes in extensions.code of the GraphQL errors this API returns. Clients branch on them, not
// on messages.
const (
	codeInsufficientScope  = "INSUFFICIENT_SCOPE"
	codeBadUserInput       = "BAD_USER_INPUT"
	codeNotFound           = "NOT_FOUND"
	codeTooDeep            = "QUERY_TOO_DEEP"
	codeTooComplex         = "QUERY_TOO_COMPLEX"
	codeTooLarge           = "QUERY_TOO_LARGE"
	codeParseFailed        = "GRAPHQL_PARSE_FAILED"
	codeValidationFailed   = "GRAPHQL_VALIDATION_FAILED"
	codeBadRequest         = "BAD_REQUEST"
	codeUnavailable        = "TEMPORARILY_UNAVAILABLE"
	codeInternal           = "INTERNAL_SERVER_ERROR"
	codeUnsupportedRequest = "UNSUPPORTED_MEDIA_TYPE"
)

// apiError is an error meant for the client: its message is safe to show and its code goes to
// extensions.code. Every other error a resolver returns is logged and answered with a generic
// message (see sanitize), so nothing of the database reaches the client.
type apiError struct {
	code    string
	message string
}

func (e *apiError) Error() string { return e.message }

// Extensions is read by the executor for the error's "extensions" member.
func (e *apiError) Extensions() map[string]any { return map[string]any{"code": e.code} }

// internalMessage is what the client is told of a failure on the server's side, whatever it was.
const internalMessage = "Something went wrong on our side."

func newError(code, format string, a ...any) *apiError {
	return &apiError{code: code, message: fmt.Sprintf(format, a...)}
}

// scopeError names the scope a field or mutation needs (spec, Errors: "a message that the
// required scope is account:write").
func scopeError(scope string) *apiError {
	return newError(codeInsufficientScope, "This needs the %s scope, which the access token does not hold.", scope)
}

// sanitize gives every error of a response a code and replaces what a resolver did not mean for
// the client with a generic message, logging the original.
func sanitize(ctx context.Context, log *slog.Logger, errs []*gqlerrors.QueryError) {
	for _, qe := range errs {
		if qe.Extensions["code"] != nil {
			continue
		}
		var known *apiError
		switch {
		case qe.ResolverError != nil && errors.As(qe.ResolverError, &known):
			qe.Message = known.message
			qe.Extensions = known.Extensions()
		case qe.ResolverError != nil:
			code, msg := codeInternal, internalMessage
			if errors.Is(qe.ResolverError, storage.ErrUnavailable) {
				code, msg = codeUnavailable, "The data could not be read right now; retry shortly."
			}
			log.LogAttrs(ctx, slog.LevelError, "member api: resolver failed",
				slog.Any("path", qe.Path), slog.String("error", qe.ResolverError.Error()))
			qe.Message = msg
			qe.Extensions = map[string]any{"code": code}
		case qe.Rule == "MaxDepthExceeded":
			qe.Extensions = map[string]any{"code": codeTooDeep}
		case qe.Rule == "OverlapValidationLimitExceeded", errors.Is(qe.Err, gql.ErrTooManySelections):
			qe.Extensions = map[string]any{"code": codeTooComplex}
		case qe.Rule != "":
			qe.Extensions = map[string]any{"code": codeValidationFailed}
		case errors.Is(qe.Err, gqlerrors.ErrSyntax):
			qe.Extensions = map[string]any{"code": codeParseFailed}
		default:
			qe.Extensions = map[string]any{"code": codeBadRequest}
		}
	}
}

// panicHandler turns a resolver's panic into a generic error, logging what happened.
type panicHandler struct{ log *slog.Logger }

func (h panicHandler) recover(ctx context.Context, value any) error {
	h.log.LogAttrs(ctx, slog.LevelError, "member api: resolver panicked", slog.Any("panic", value))
	return &apiError{code: codeInternal, message: internalMessage}
}

// resolverError marks an error a resolver returned (curriculumWriter.InterceptField wraps them),
// as graphql-go told them apart: its message and code are the resolver's to give (sanitize),
// while an error of the executor's own, such as an argument that does not fit its type, is
// the request's fault.
type resolverError struct{ err error }

func (e resolverError) Error() string { return e.err.Error() }
func (e resolverError) Unwrap() error { return e.err }

// queryErrors gives the executor's errors graphql-go's shape, the one sanitize and the client
// see: a resolver's error stays reachable as ResolverError, a path is names and indexes.
// Errors met while executing carry no locations, as graphql-go's did not.
func queryErrors(list gqlerror.List, executing bool) []*gqlerrors.QueryError {
	if len(list) == 0 {
		return nil
	}
	out := make([]*gqlerrors.QueryError, len(list))
	for i, e := range list {
		qe := &gqlerrors.QueryError{Message: e.Message, Extensions: e.Extensions}
		var re resolverError
		var known *apiError
		switch {
		case errors.As(e, &re):
			qe.ResolverError = re.err
		case errors.As(e, &known): // a panic, as panicHandler answers it
			qe.ResolverError = known
		}
		if !executing {
			for _, l := range e.Locations {
				qe.Locations = append(qe.Locations, gqlerrors.Location{Line: l.Line, Column: l.Column})
			}
		}
		for _, p := range e.Path {
			switch p := p.(type) {
			case ast.PathIndex:
				qe.Path = append(qe.Path, int(p))
			case ast.PathName:
				qe.Path = append(qe.Path, string(p))
			}
		}
		out[i] = qe
	}
	return out
}

// operationError is graphql-go's refusal of a document whose operation to run is not clear:
// several and no operationName, or none of that name.
func operationError(operations int, name string) *gqlerrors.QueryError {
	if name == "" && operations > 1 {
		return &gqlerrors.QueryError{Message: "more than one operation in query document and no operation name given"}
	}
	return &gqlerrors.QueryError{Message: fmt.Sprintf("no operation with name %q", name)}
}
