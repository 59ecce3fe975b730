package graphql

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	gql "github.com/graph-gophers/graphql-go"

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

// pageArgs are the arguments of every connection field. The schema gives first its default, so
// graphql-go always fills it in.
type pageArgs struct {
	First int32
	After *string
}

// page checks the arguments and turns them into a storage page.
func (a pageArgs) page() (storage.Page, error) {
	p := storage.Page{First: int(a.First)}
	if p.First < 1 || p.First > maxFirst {
		return p, newError(codeBadUserInput, "first must be between 1 and %d, got %d.", maxFirst, p.First)
	}
	if a.After != nil {
		p.After = *a.After
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

// connection answers every connection field: one page of nodes and its pageInfo.
type connection[N any] struct {
	nodes    []*N
	pageInfo pageInfo
}

// newConnection makes a connection of one page the store returned, each item a node made by node.
func newConnection[T, N any](list []T, next string, node func(T) *N) *connection[N] {
	conn := &connection[N]{pageInfo: pageInfo{next: next}}
	for _, it := range list {
		conn.nodes = append(conn.nodes, node(it))
	}
	return conn
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

func (dateTime) ImplementsGraphQLType(name string) bool { return name == "DateTime" }

func (t *dateTime) UnmarshalGraphQL(input any) error {
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

func (t dateTime) MarshalJSON() ([]byte, error) {
	return []byte(`"` + t.UTC().Format(time.RFC3339Nano) + `"`), nil
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

func id(n int64) gql.ID { return gql.ID(strconv.FormatInt(n, 10)) }

// money is an amount for GraphQL's Int, which is 32 bits: about 21 million dollars in cents.
// A larger amount is an error rather than a wrapped number.
func money(n int64) (int32, error) {
	if n < math.MinInt32 || n > math.MaxInt32 {
		return 0, fmt.Errorf("amount %d does not fit GraphQL's Int", n)
	}
	return int32(n), nil
}
