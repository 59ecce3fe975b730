package gormstore

import (
	"sync/atomic"

	"gorm.io/gorm"
)

// Statements returns how many SQL statements the store has sent since it was opened (queries,
// writes, raw SQL; not BEGIN and COMMIT). The server exports it as a metric; divided by the
// requests served it gives the statements per request that docs/benchmarks.md records.
func (s *Store) Statements() int64 { return s.sent.Load() }

// StatementCounter counts the statements a store sends from a starting point. Tests use it to
// show that a request's statement count stays fixed however much data it reads (batched loading
// in the Member API). It is not safe for concurrent Reset.
type StatementCounter struct {
	src  *atomic.Int64
	base int64
}

// Count returns the statements sent since the counter was made or last reset.
func (c *StatementCounter) Count() int64 { return c.src.Load() - c.base }

// Reset starts counting again from now.
func (c *StatementCounter) Reset() { c.base = c.src.Load() }

// CountStatements returns a counter of the statements sent from now on.
func (s *Store) CountStatements() *StatementCounter {
	return &StatementCounter{src: &s.sent, base: s.sent.Load()}
}

// countStatements hooks s.sent into every callback chain that sends SQL. gorm's chains are
// not safe to change while queries run, so Open calls it before the store is shared. One atomic
// add per statement is all it costs.
func (s *Store) countStatements() {
	const name = "proctor:count_statements"
	count := func(db *gorm.DB) {
		// gorm renders a subquery by running the query chain without sending it.
		if !db.DryRun {
			s.sent.Add(1)
		}
	}
	// Errors here could only be a duplicate name, and each store registers once.
	for _, c := range s.sendingChains() {
		_ = c.after(name, count)
	}
}

// sendingChain registers callbacks just before and just after the callback of one of gorm's
// chains that sends the SQL.
type sendingChain struct {
	before, after func(name string, fn func(*gorm.DB)) error
}

// sendingChains are the chains that send SQL: queries, creates, updates, deletes, Row and Raw.
func (s *Store) sendingChains() []sendingChain {
	cb := s.db.Callback()
	return []sendingChain{
		{cb.Query().Before("gorm:query").Register, cb.Query().After("gorm:query").Register},
		{cb.Create().Before("gorm:create").Register, cb.Create().After("gorm:create").Register},
		{cb.Update().Before("gorm:update").Register, cb.Update().After("gorm:update").Register},
		{cb.Delete().Before("gorm:delete").Register, cb.Delete().After("gorm:delete").Register},
		{cb.Row().Before("gorm:row").Register, cb.Row().After("gorm:row").Register},
		{cb.Raw().Before("gorm:raw").Register, cb.Raw().After("gorm:raw").Register},
	}
}
