package operator

import "github.com/proctorhq/proctor/storage"

// PageParams are the query parameters of every list. The cursor is opaque: clients pass back
// next_cursor as they got it. The size is bounded by the schema (1 to 100, default 20), so an
// out-of-range limit is a 422 rather than silently changed.
type PageParams struct {
	Cursor string `query:"cursor" maxLength:"200" doc:"The next_cursor of the previous page; empty for the first page."`
	Limit  int    `query:"limit" minimum:"1" maximum:"100" default:"20" doc:"How many items the page holds at most."`
}

func (p PageParams) page() storage.Page { return storage.Page{First: p.Limit, After: p.Cursor} }

// List is one page of a list.
type List[T any] struct {
	Items      []T    `json:"items"`
	NextCursor string `json:"next_cursor,omitempty" doc:"Cursor of the next page; absent on the last page."`
}

// ListOutput is the response of every list operation.
type ListOutput[T any] struct {
	Body List[T]
}

// listOf converts one page of store values.
func listOf[S, T any](items []S, next string, f func(S) T) *ListOutput[T] {
	out := make([]T, len(items))
	for i, it := range items {
		out[i] = f(it)
	}
	return &ListOutput[T]{Body: List[T]{Items: out, NextCursor: next}}
}
