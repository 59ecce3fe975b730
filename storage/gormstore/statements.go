package gormstore

import (
	"fmt"
	"sync/atomic"

	"gorm.io/gorm"
)

// StatementCounter counts the SQL statements a store sends. Tests use it to show that a
// request's statement count stays fixed however much data the request reads (batched loading in
// the Member API); nothing in production counts.
type StatementCounter struct {
	n atomic.Int64
}

// Count returns the statements counted since the counter was made or last reset.
func (c *StatementCounter) Count() int64 { return c.n.Load() }

// Reset sets the count back to zero.
func (c *StatementCounter) Reset() { c.n.Store(0) }

// CountStatements makes the store count every statement it sends from now on (queries, writes,
// raw SQL; not BEGIN and COMMIT) and returns the counter. gorm's callback chains are not safe to
// change while queries run, so call it right after Open, before the store is shared.
func (s *Store) CountStatements() *StatementCounter {
	c := &StatementCounter{}
	name := fmt.Sprintf("proctor:count_statements:%p", c)
	count := func(db *gorm.DB) {
		// gorm renders a subquery by running the query chain without sending it.
		if !db.DryRun {
			c.n.Add(1)
		}
	}
	cb := s.db.Callback()
	// Errors here could only be a duplicate name, which the counter's address rules out.
	_ = cb.Query().After("gorm:query").Register(name, count)
	_ = cb.Create().After("gorm:create").Register(name, count)
	_ = cb.Update().After("gorm:update").Register(name, count)
	_ = cb.Delete().After("gorm:delete").Register(name, count)
	_ = cb.Row().After("gorm:row").Register(name, count)
	_ = cb.Raw().After("gorm:raw").Register(name, count)
	return c
}
