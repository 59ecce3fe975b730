package consent

import (
	"fmt"
	"testing"
	"time"
)

func TestMemoryLimiter(t *testing.T) {
	c := &clock{t: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	m := NewMemoryLimiter(0, c.Now)
	ctx := t.Context()
	l := Limit{Max: 3, Window: 10 * time.Minute}
	allow := func(key string) bool {
		t.Helper()
		ok, err := m.Allow(ctx, key, l)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	fail := func(key string) {
		t.Helper()
		if err := m.Fail(ctx, key, l); err != nil {
			t.Fatal(err)
		}
	}

	for i := 0; i < l.Max; i++ {
		if !allow("k") {
			t.Fatalf("refused after %d failures", i)
		}
		fail("k")
		c.Advance(time.Minute)
	}
	if allow("k") {
		t.Fatal("allowed after Max failures")
	}
	if !allow("other") {
		t.Error("another key is limited")
	}
	// The window counts from the first failure.
	c.Advance(l.Window - 3*time.Minute)
	if !allow("k") {
		t.Error("still limited after the window")
	}
	fail("k")
	if !allow("k") {
		t.Error("a new window did not start from one failure")
	}
	for i := 0; i < l.Max; i++ {
		fail("k")
	}
	if err := m.Reset(ctx, "k"); err != nil {
		t.Fatal(err)
	}
	if !allow("k") || m.Len() != 0 {
		t.Errorf("Reset did not forget: len %d", m.Len())
	}
}

func TestMemoryLimiterIsBounded(t *testing.T) {
	c := &clock{t: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	m := NewMemoryLimiter(200, c.Now)
	ctx := t.Context()
	l := Limit{Max: 1, Window: time.Minute}
	for i := 0; i < 1000; i++ {
		_ = m.Fail(ctx, fmt.Sprint("k", i), l)
	}
	if m.Len() != 200 {
		t.Errorf("holds %d keys, want 200", m.Len())
	}
	// The newest keys are kept; the oldest were dropped.
	if ok, _ := m.Allow(ctx, "k999", l); ok {
		t.Error("the newest key was dropped")
	}
	if ok, _ := m.Allow(ctx, "k0", l); !ok {
		t.Error("the oldest key was kept")
	}
	// Expired keys are swept as calls arrive.
	c.Advance(time.Minute)
	for i := 0; i < 2; i++ {
		_, _ = m.Allow(ctx, "x", l)
	}
	if m.Len() != 200-2*sweepBatch {
		t.Errorf("after two sweeps: %d keys", m.Len())
	}
}
