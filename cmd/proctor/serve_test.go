package main

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeStartup is a start-up clock that moves only when retryStartup sleeps.
func fakeStartup(timeout time.Duration) (startup, *[]time.Duration) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var waits []time.Duration
	return startup{
		timeout: timeout,
		now:     func() time.Time { return now },
		sleep: func(ctx context.Context, d time.Duration) error {
			waits = append(waits, d)
			now = now.Add(d)
			return ctx.Err()
		},
	}, &waits
}

// The start-up retry backs off from startupFirstRetry to startupMaxRetry, logs every failed
// attempt and stops at the first success.
func TestRetryStartupBacksOffAndLogsEachAttempt(t *testing.T) {
	clock, waits := fakeStartup(time.Minute)
	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	attempts := 0
	err := retryStartup(t.Context(), log, clock, func(context.Context) error {
		attempts++
		if attempts < 7 {
			return errors.New("dial tcp 127.0.0.1:1: connection refused")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if attempts != 7 {
		t.Errorf("%d attempts, want 7", attempts)
	}
	want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second}
	if !slices.Equal(*waits, want) {
		t.Errorf("waits %v, want %v", *waits, want)
	}
	if n := strings.Count(logs.String(), `"msg":"database unreachable: retrying"`); n != 6 {
		t.Errorf("%d retry lines, want one per failed attempt (6):\n%s", n, logs.String())
	}
	if !strings.Contains(logs.String(), `"msg":"database reachable","attempt":7`) {
		t.Errorf("no line for the attempt that succeeded:\n%s", logs.String())
	}
}

// When the time runs out it gives up with an error naming the setting and the last failure,
// the last wait cut so that the final attempt falls on the deadline.
func TestRetryStartupGivesUpAtTheTimeout(t *testing.T) {
	clock, waits := fakeStartup(3 * time.Second)
	attempts := 0
	err := retryStartup(t.Context(), slog.New(slog.DiscardHandler), clock, func(context.Context) error {
		attempts++
		return errors.New("connection refused")
	})
	if err == nil {
		t.Fatal("no error after the timeout")
	}
	for _, s := range []string{"database unreachable after 4 attempts in 3s", "database.startup_timeout", "connection refused"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not say %q", err, s)
		}
	}
	// 0.5 + 1 + 1.5 (cut from 2) = 3 s.
	if want := []time.Duration{500 * time.Millisecond, time.Second, 1500 * time.Millisecond}; !slices.Equal(*waits, want) {
		t.Errorf("waits %v, want %v", *waits, want)
	}
}

// With startup_timeout 0 it tries once, as serve did before the retry.
func TestRetryStartupZeroTriesOnce(t *testing.T) {
	clock, waits := fakeStartup(0)
	attempts := 0
	err := retryStartup(t.Context(), slog.New(slog.DiscardHandler), clock, func(context.Context) error {
		attempts++
		return errors.New("connection refused")
	})
	if err == nil || attempts != 1 || len(*waits) != 0 {
		t.Errorf("err %v after %d attempts and waits %v, want an error after one attempt", err, attempts, *waits)
	}
}

// A stop signal while waiting ends the retry at once.
func TestRetryStartupStopsWithTheContext(t *testing.T) {
	clock, _ := fakeStartup(time.Minute)
	ctx, cancel := context.WithCancel(t.Context())
	attempts := 0
	err := retryStartup(ctx, slog.New(slog.DiscardHandler), clock, func(context.Context) error {
		attempts++
		if attempts == 2 {
			cancel()
		}
		return errors.New("connection refused")
	})
	if !errors.Is(err, context.Canceled) || attempts != 2 {
		t.Errorf("err %v after %d attempts, want context.Canceled after 2", err, attempts)
	}
}
