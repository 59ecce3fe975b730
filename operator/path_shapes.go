package operator

import (
	"context"
	"errors"

	"github.com/danielgtaylor/huma/v2"

	"github.com/proctorhq/proctor/storage"
)

// The shapes most operations of the API share: a page of a list, and the creation of one item
// from a request body. what names the item in the problem a store error becomes (see problem).

// bodyOf answers one item the store returned, converted by out, or the refusal its error
// becomes: the problem of a store error, or a huma error (a check of the handler's, made before
// or inside the store's call) as it is.
func bodyOf[T, O any](ctx context.Context, h *Handler, what string, item T, err error, out func(T) O) (*struct{ Body O }, error) {
	if err != nil {
		return nil, h.refusal(ctx, what, err)
	}
	return &struct{ Body O }{out(item)}, nil
}

// pageOf answers one page of items the store returned, each converted by out, or the problem
// its error becomes.
func pageOf[T, O any](ctx context.Context, h *Handler, what string, items []T, next string, err error, out func(T) O) (*ListOutput[O], error) {
	if err != nil {
		return nil, h.problem(ctx, what, err)
	}
	return listOf(items, next, out), nil
}

// registerList registers the list operation id without filters: one page of list, each item
// converted by out. list is a method expression of stores (stores.ListEvents), called with the
// handler's store when a request comes: the document is built from a handler that has no store.
func registerList[T, O any](h *Handler, api huma.API, id, what string, list func(stores, context.Context, storage.Page) ([]T, string, error), out func(T) O) {
	register(h, api, id, func(ctx context.Context, in *struct{ PageParams }) (*ListOutput[O], error) {
		items, next, err := list(h.store, ctx, in.page())
		return pageOf(ctx, h, what, items, next, err, out)
	})
}

// registerCreate registers the creation operation id of an item from a request body B: row
// checks the body and makes the item to store, create (a method expression of stores, as for
// registerList) stores it, and out converts the stored item for the response. A refusal of row
// is a huma error (see invalid) and answers as it is; any other error is a store error.
func registerCreate[B, T, O any](h *Handler, api huma.API, id, what string, row func(B) (T, error), create func(stores, context.Context, T) (T, error), out func(T) O) {
	register(h, api, id, func(ctx context.Context, in *struct{ Body B }) (*struct{ Body O }, error) {
		item, err := row(in.Body)
		if err == nil {
			item, err = create(h.store, ctx, item)
		}
		return bodyOf(ctx, h, what, item, err, out)
	})
}

// parentPage is the input of a list of one parent's items: the parent named in the path (an
// embedded CoursePath, EventPath, FormPath) and the page.
type parentPage interface {
	parentID() int64
	page() storage.Page
}

// registerListOf registers the list operation id of one parent's items: one page of list for the
// parent the input I names, each item converted by out. list is a method expression of stores,
// as for registerList; what names the parent in the problem a store error becomes.
func registerListOf[I parentPage, T, O any](h *Handler, api huma.API, id, what string, list func(stores, context.Context, int64, storage.Page) ([]T, string, error), out func(T) O) {
	register(h, api, id, func(ctx context.Context, in *I) (*ListOutput[O], error) {
		items, next, err := list(h.store, ctx, (*in).parentID(), (*in).page())
		return pageOf(ctx, h, what, items, next, err, out)
	})
}

// patched is the store's update function for a patch that cannot fail: apply sets the fields
// the client sent on the row while the store holds it locked.
func patched[T any](apply func(*T)) func(T) (T, error) {
	return func(row T) (T, error) {
		apply(&row)
		return row, nil
	}
}

// refusal is problem for errors that may also be the handler's own refusals: a huma error
// answers as it is.
func (h *Handler) refusal(ctx context.Context, what string, err error) error {
	var se huma.StatusError
	if errors.As(err, &se) {
		return se
	}
	return h.problem(ctx, what, err)
}
