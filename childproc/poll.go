package childproc

import (
	"context"
	"errors"
	"time"
)

// ErrExited is Poll's error when exited is closed before the condition held: what was awaited
// can no longer come.
var ErrExited = errors.New("the process exited")

// Poll calls cond, then again every pause of every, until it holds (nil), exited is closed
// (ErrExited; nil never is) or ctx ends (context.Cause of ctx: a deadline given with
// context.WithTimeoutCause says what never happened). cond is not called once ctx has ended.
//
// A deadline on ctx only stops a wait that would hang; the callers pick one a busy machine
// cannot reach. It is the one loop of "wait until this holds, or the process is gone", for
// WaitReady and for the tests that wait on a process or on anything else.
func Poll(ctx context.Context, every time.Duration, exited <-chan struct{}, cond func() bool) error {
	for ctx.Err() == nil {
		if cond() {
			return nil
		}
		select {
		case <-exited:
			return ErrExited
		case <-ctx.Done():
		case <-time.After(every):
		}
	}
	return context.Cause(ctx)
}
