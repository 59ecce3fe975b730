package storage

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

// fakeTx records the calls InTx makes; its contract is only those calls.
type fakeTx struct {
	calls                        []string
	beginErr, commitErr, rollErr error
}

type txMark struct{}

func (f *fakeTx) BeginTx(ctx context.Context) (context.Context, error) {
	f.calls = append(f.calls, "begin")
	if f.beginErr != nil {
		return ctx, f.beginErr
	}
	return context.WithValue(ctx, txMark{}, f), nil
}

func (f *fakeTx) Commit(ctx context.Context) error {
	f.calls = append(f.calls, f.in(ctx, "commit"))
	return f.commitErr
}

func (f *fakeTx) Rollback(ctx context.Context) error {
	f.calls = append(f.calls, f.in(ctx, "rollback"))
	return f.rollErr
}

// in names the call, marked when it came without the transaction's context.
func (f *fakeTx) in(ctx context.Context, call string) string {
	if ctx.Value(txMark{}) != f {
		return call + " outside the transaction"
	}
	return call
}

func TestInTx(t *testing.T) {
	errFn := errors.New("fn refused")
	errDB := errors.New("connection lost")

	t.Run("commits when fn succeeds", func(t *testing.T) {
		f := &fakeTx{}
		err := InTx(t.Context(), f, func(ctx context.Context) error {
			f.calls = append(f.calls, f.in(ctx, "fn"))
			return nil
		})
		if err != nil || !slices.Equal(f.calls, []string{"begin", "fn", "commit"}) {
			t.Fatalf("err %v, calls %v", err, f.calls)
		}
	})

	t.Run("rolls back when fn fails, returning fn's error", func(t *testing.T) {
		f := &fakeTx{}
		err := InTx(t.Context(), f, func(context.Context) error { return errFn })
		if err != errFn || !slices.Equal(f.calls, []string{"begin", "rollback"}) {
			t.Fatalf("err %v, calls %v", err, f.calls)
		}
	})

	t.Run("a failed rollback is told but does not replace fn's error", func(t *testing.T) {
		f := &fakeTx{rollErr: errDB}
		err := InTx(t.Context(), f, func(context.Context) error { return errFn })
		if !errors.Is(err, errFn) || errors.Is(err, errDB) || !strings.Contains(err.Error(), errDB.Error()) {
			t.Fatalf("err %v", err)
		}
		if !slices.Equal(f.calls, []string{"begin", "rollback"}) {
			t.Fatalf("calls %v", f.calls)
		}
	})

	t.Run("a failed begin runs nothing", func(t *testing.T) {
		f := &fakeTx{beginErr: errDB}
		ran := false
		err := InTx(t.Context(), f, func(context.Context) error { ran = true; return nil })
		if !errors.Is(err, errDB) || ran || !slices.Equal(f.calls, []string{"begin"}) {
			t.Fatalf("err %v, ran %v, calls %v", err, ran, f.calls)
		}
	})

	t.Run("a failed commit is returned and the transaction rolled back", func(t *testing.T) {
		f := &fakeTx{commitErr: errDB}
		err := InTx(t.Context(), f, func(context.Context) error { return nil })
		if !errors.Is(err, errDB) || !slices.Equal(f.calls, []string{"begin", "commit", "rollback"}) {
			t.Fatalf("err %v, calls %v", err, f.calls)
		}
	})

	t.Run("a panic in fn rolls back and goes on", func(t *testing.T) {
		f := &fakeTx{}
		defer func() {
			if p := recover(); p != "boom" {
				t.Fatalf("recovered %v", p)
			}
			if !slices.Equal(f.calls, []string{"begin", "rollback"}) {
				t.Fatalf("calls %v", f.calls)
			}
		}()
		_ = InTx(t.Context(), f, func(context.Context) error { panic("boom") })
		t.Fatal("the panic was swallowed")
	})
}
