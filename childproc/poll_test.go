package childproc

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestPollUntilItHolds(t *testing.T) {
	tries := 0
	if err := Poll(t.Context(), time.Millisecond, nil, func() bool { tries++; return tries == 3 }); err != nil {
		t.Fatal(err)
	}
	if tries != 3 {
		t.Fatalf("%d tries, want 3", tries)
	}
}

// TestPollExited: a closed exited ends the wait, unless the condition already holds.
func TestPollExited(t *testing.T) {
	exited := make(chan struct{})
	close(exited)
	if err := Poll(t.Context(), time.Minute, exited, func() bool { return false }); !errors.Is(err, ErrExited) {
		t.Fatalf("err = %v, want ErrExited", err)
	}
	if err := Poll(t.Context(), time.Minute, exited, func() bool { return true }); err != nil {
		t.Fatalf("err = %v for a condition that holds", err)
	}
}

// TestPollContextEnds: the context's cause is the error, and a condition is not tried once
// the context has ended.
func TestPollContextEnds(t *testing.T) {
	never := errors.New("never")
	ctx, cancel := context.WithCancelCause(t.Context())
	tries := 0
	err := Poll(ctx, time.Millisecond, nil, func() bool {
		tries++
		if tries == 2 {
			cancel(never)
		}
		return false
	})
	if !errors.Is(err, never) {
		t.Fatalf("err = %v, want the cause", err)
	}
	if tries != 2 {
		t.Fatalf("%d tries, want 2: none after the context ended", tries)
	}
}
