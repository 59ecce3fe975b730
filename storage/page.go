package storage

// MaxPageSize is the most items a store returns in one page: a larger Page.First is cut down
// to it. Reading a whole list in pages this large keeps the number of statements low.
const MaxPageSize = 100

// EachPage calls f with every item of a paged list, in order, reading it through list in pages
// of MaxPageSize from the first to the last (the one list gives no next cursor for). It stops
// at list's first error and returns it.
func EachPage[T any](list func(Page) ([]T, string, error), f func(T)) error {
	p := Page{First: MaxPageSize}
	for {
		items, next, err := list(p)
		if err != nil {
			return err
		}
		for _, it := range items {
			f(it)
		}
		if next == "" {
			return nil
		}
		p.After = next
	}
}
