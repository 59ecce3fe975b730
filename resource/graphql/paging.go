package graphql

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/proctorhq/proctor/storage"
)

// Every connection takes `first` (default 20) and `after`. `first` above maxFirst is refused with
// BAD_USER_INPUT rather than cut down, so that a client asking for more than a page holds learns
// it at once instead of mistaking a short page for the end (spec, Limits: payments up to 50 nodes
// per page; the other connections share the bound).
const (
	defaultFirst = 20
	maxFirst     = 50
)

// pageOf checks the arguments of a connection field and turns them into a storage page. The
// schema gives first its default, so it is nil only when the client sent null: that is no
// number of nodes, refused like 0.
func pageOf(first *int32, after *string) (storage.Page, error) {
	var p storage.Page
	if first != nil {
		p.First = int(*first)
	}
	if p.First < 1 || p.First > maxFirst {
		return p, newError(codeBadUserInput, "first must be between 1 and %d, got %d.", maxFirst, p.First)
	}
	if after != nil {
		p.After = *after
	}
	return p, nil
}

// listError turns a storage list error into the client's: a cursor the store did not make is the
// client's mistake; anything else is ours.
func listError(field string, err error) error {
	if errors.Is(err, storage.ErrInvalidArgument) {
		return newError(codeBadUserInput, "after is not a cursor of %s.", field)
	}
	return fmt.Errorf("%s: %w", field, err)
}

// readPage reads the page of a list that first and after ask for, with read; a store error is
// field's (listError).
func readPage[T any](field string, first *int32, after *string, read func(storage.Page) ([]T, string, error)) ([]T, string, error) {
	page, err := pageOf(first, after)
	if err != nil {
		return nil, "", err
	}
	list, next, err := read(page)
	if err != nil {
		return nil, "", listError(field, err)
	}
	return list, next, nil
}

// listPage answers a connection field whose nodes need nothing beyond their item: one page read
// by readPage, each item a node made by node.
func listPage[T, N any](field string, first *int32, after *string, read func(storage.Page) ([]T, string, error), node func(T) *N) (*connection[N], error) {
	list, next, err := readPage(field, first, after, read)
	if err != nil {
		return nil, err
	}
	return newConnection(list, next, node), nil
}

// connection answers every connection field: one page of nodes and its pageInfo.
type connection[N any] struct {
	nodes    []*N
	pageInfo pageInfo
}

// The connection types the schema names, bound to its types in gqlgen.yml.
type (
	courseConnection            = connection[course]
	digitalProductConnection    = connection[digitalProduct]
	consultingServiceConnection = connection[consultingService]
	eventRegistrationConnection = connection[eventRegistration]
	paymentConnection           = connection[payment]
	notificationConnection      = connection[notification]
)

// newConnection makes a connection of one page the store returned, each item a node made by node.
func newConnection[T, N any](list []T, next string, node func(T) *N) *connection[N] {
	return &connection[N]{nodes: nodesOf(list, node), pageInfo: pageInfo{next: next}}
}

// nodesOf answers a list field: each item of list a node made by node, in order.
func nodesOf[T, N any](list []T, node func(T) *N) []*N {
	out := make([]*N, len(list))
	for i, it := range list {
		out[i] = node(it)
	}
	return out
}

func (c *connection[N]) Nodes() []*N         { return c.nodes }
func (c *connection[N]) PageInfo() *pageInfo { return &c.pageInfo }

// pageInfo answers a connection's pageInfo. The storage cursor of the following page doubles
// as the endCursor: it names the position after the page's last node, which is what `after`
// continues from. The store makes one only when another page follows, so endCursor is null on
// the last page.
type pageInfo struct{ next string }

func (p pageInfo) HasNextPage() bool { return p.next != "" }

func (p pageInfo) EndCursor() *string { return optionalString(p.next) }

// dateTime is the DateTime scalar: RFC 3339 in UTC, to the second or finer as stored.
type dateTime struct{ time.Time }

func (t *dateTime) UnmarshalGQL(input any) error {
	s, ok := input.(string)
	if !ok {
		return fmt.Errorf("DateTime must be a string, got %T", input)
	}
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return fmt.Errorf("DateTime must be RFC 3339: %w", err)
	}
	t.Time = v.UTC()
	return nil
}

// MarshalGQL writes the instant as a JSON string.
func (t dateTime) MarshalGQL(w io.Writer) { writeAppended(w, len(`"`+time.RFC3339Nano+`"`), t.append) }

// append writes the instant as a JSON string: RFC 3339 has nothing JSON escapes.
func (t dateTime) append(b []byte) []byte {
	b = append(b, '"')
	b = t.UTC().AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

func newDateTime(t time.Time) dateTime { return dateTime{t} }

func optionalDateTime(t *time.Time) *dateTime {
	if t == nil {
		return nil
	}
	return &dateTime{*t}
}

// optionalString is null for "", which is how the store keeps an absent text.
func optionalString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func id(n int64) string { return strconv.FormatInt(n, 10) }

// money is an amount for GraphQL's Int, which is 32 bits: about 21 million dollars in cents.
// A larger amount is an error rather than a wrapped number.
func money(n int64) (int32, error) {
	if n < math.MinInt32 || n > math.MaxInt32 {
		return 0, fmt.Errorf("amount %d does not fit GraphQL's Int", n)
	}
	return int32(n), nil
}
