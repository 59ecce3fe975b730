package gormstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"gorm.io/gorm"

	"github.com/proctorhq/proctor/storage"
)

// A caller's transaction (storage.Transactions) travels in the context under txKey. The key
// names the store that began it, so a context that passes through two stores never hands one
// store's transaction to the other.
type txKey struct{ store *Store }

// callerTx is one transaction begun by BeginTx.
type callerTx struct {
	db *gorm.DB
}

// errNoTx is returned when a method that needs the caller's transaction is called without one.
var errNoTx = fmt.Errorf("gormstore: no transaction in the context (call BeginTx first): %w", storage.ErrInvalidArgument)

// txFrom returns the transaction ctx carries for this store, or nil.
func (s *Store) txFrom(ctx context.Context) *callerTx {
	tx, _ := ctx.Value(txKey{s}).(*callerTx)
	return tx
}

// conn is the handle every method queries through: the caller's transaction when ctx carries
// one, so that a method called inside BeginTx..Commit reads that transaction's own writes and
// becomes part of it, and the pool otherwise. On SQLite this is also what keeps a caller's
// transaction from waiting on itself: it holds the database's write lock, and a write through
// another connection would queue behind it until the busy timeout.
func (s *Store) conn(ctx context.Context) *gorm.DB {
	if tx := s.txFrom(ctx); tx != nil {
		return tx.db.WithContext(ctx)
	}
	return s.db.WithContext(ctx)
}

// BeginTx starts a transaction and returns a context carrying it. Transactions do not nest:
// beginning one in a context that already carries one is an error.
func (s *Store) BeginTx(ctx context.Context) (context.Context, error) {
	if s.txFrom(ctx) != nil {
		return ctx, fmt.Errorf("gormstore: begin: a transaction is already open in this context: %w", storage.ErrInvalidArgument)
	}
	tx := s.db.WithContext(ctx).Begin()
	if tx.Error != nil {
		return ctx, wrap("begin", tx.Error)
	}
	return context.WithValue(ctx, txKey{s}, &callerTx{db: tx}), nil
}

// Commit commits the context's transaction.
func (s *Store) Commit(ctx context.Context) error {
	tx := s.txFrom(ctx)
	if tx == nil {
		return errNoTx
	}
	return wrap("commit", tx.db.Commit().Error)
}

// Rollback rolls the context's transaction back. Rolling back one that already ended (committed,
// or rolled back before) is harmless, so that a deferred Rollback can follow a Commit.
func (s *Store) Rollback(ctx context.Context) error {
	tx := s.txFrom(ctx)
	if tx == nil {
		return errNoTx
	}
	if err := tx.db.Rollback().Error; err != nil && !errors.Is(err, sql.ErrTxDone) {
		return wrap("rollback", err)
	}
	return nil
}

// inTx runs fn in a transaction, committing if it returns nil. Inside a caller's transaction fn
// simply runs in it (gorm cannot begin a transaction within one, and the caller's Commit or
// Rollback decides for the whole). fn's own error is returned as is (UpdateMember's contract),
// so fn must wrap the database errors it meets itself.
func (s *Store) inTx(ctx context.Context, op string, fn func(tx *gorm.DB) error) error {
	if outer := s.txFrom(ctx); outer != nil {
		return fn(outer.db.WithContext(ctx))
	}
	tx := s.db.WithContext(ctx).Begin()
	if tx.Error != nil {
		return wrap(op+": begin", tx.Error)
	}
	done := false
	defer func() {
		if !done {
			tx.Rollback()
		}
	}()
	if err := fn(tx); err != nil {
		return err
	}
	done = true
	return wrap(op+": commit", tx.Commit().Error)
}

// updateByID is the frame of the school-scoped Update methods: in one transaction it reads the
// school's row with the id FOR UPDATE, hands fn the row as a domain value (from), and lets save
// check fn's result and write it back, returning what the row now holds. fn must not call the
// store (see UpdateMember).
func updateByID[R, T any](s *Store, ctx context.Context, op string, id any, from func(R) (T, error),
	fn func(T) (T, error), save func(tx *gorm.DB, sc scope, row R, next T) (T, error)) (T, error) {
	var out T
	sc, err := s.scoped(ctx)
	if err != nil {
		return out, err
	}
	err = s.inTx(ctx, op, func(tx *gorm.DB) error {
		var row R
		if err := forUpdate(sc.in(tx)).Where("id = ?", id).Take(&row).Error; err != nil {
			return wrap(op, err)
		}
		cur, err := from(row)
		if err != nil {
			return err
		}
		next, err := fn(cur)
		if err != nil {
			return err
		}
		out, err = save(tx, sc, row, next)
		return err
	})
	return out, err
}

// infallible adapts a row converter that cannot fail to updateByID's from.
func infallible[R, T any](convert func(R) T) func(R) (T, error) {
	return func(r R) (T, error) { return convert(r), nil }
}
