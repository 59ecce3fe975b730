package login

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/proctorhq/proctor/server/servertest/schools"
)

// annKey is Ann's account budget key before any unlock.
var annKey = accountLimitKey(accountDigestBytes(annEmail), time.Time{})

// limiterSuite is the Limiter contract; every Limiter runs it (TestMemoryLimiterContract,
// TestRedisLimiterContract, TestRedisLimiterFallbackContract).
func limiterSuite(t *testing.T, newLimiter func(t *testing.T) Limiter) {
	lim := Limit{Max: 3, Window: time.Minute}
	t.Run("budget", func(t *testing.T) {
		l := newLimiter(t)
		for i := 0; i < lim.Max; i++ {
			mustTake(t, l, "k", lim, true)
		}
		// A refused Take charges nothing: refunding one charge frees exactly one place.
		mustTake(t, l, "k", lim, false)
		mustTake(t, l, "k", lim, false)
		mustTake(t, l, "other", lim, true)
		if err := l.Refund(t.Context(), "k"); err != nil {
			t.Fatal(err)
		}
		mustTake(t, l, "k", lim, true)
		mustTake(t, l, "k", lim, false)
		if err := l.Reset(t.Context(), "k"); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < lim.Max; i++ {
			mustTake(t, l, "k", lim, true)
		}
		mustTake(t, l, "k", lim, false)
	})
	t.Run("spent", func(t *testing.T) {
		l := newLimiter(t)
		spent := func(key string, want bool) {
			t.Helper()
			got, err := l.Spent(t.Context(), key, lim)
			if err != nil || got != want {
				t.Fatalf("Spent(%q) = %v, %v; want %v", key, got, err, want)
			}
		}
		spent("k", false) // never charged
		for i := 0; i < lim.Max; i++ {
			spent("k", false)
			mustTake(t, l, "k", lim, true)
		}
		// Asking charges nothing, however often.
		for range 3 {
			spent("k", true)
		}
		spent("other", false)
		if err := l.Refund(t.Context(), "k"); err != nil {
			t.Fatal(err)
		}
		spent("k", false)
		mustTake(t, l, "k", lim, true)
		spent("k", true)
		if err := l.Reset(t.Context(), "k"); err != nil {
			t.Fatal(err)
		}
		spent("k", false)
		// Asking about an uncharged key does not start its window: a full budget follows.
		for i := 0; i < lim.Max; i++ {
			mustTake(t, l, "other", lim, true)
		}
		mustTake(t, l, "other", lim, false)
	})
	t.Run("refund never goes below zero", func(t *testing.T) {
		l := newLimiter(t)
		for _, k := range []string{"never-charged", "once"} {
			if k == "once" {
				mustTake(t, l, k, lim, true)
			}
			for i := 0; i < 3; i++ {
				if err := l.Refund(t.Context(), k); err != nil {
					t.Fatal(err)
				}
			}
			for i := 0; i < lim.Max; i++ {
				mustTake(t, l, k, lim, true)
			}
			mustTake(t, l, k, lim, false)
		}
	})
	t.Run("concurrent burst", func(t *testing.T) {
		// N callers released at once by a closed channel: exactly Max are charged, however
		// their calls interleave.
		l := newLimiter(t)
		burst := Limit{Max: 5, Window: time.Minute}
		const n = 40
		var (
			start   = make(chan struct{})
			wg      sync.WaitGroup
			mu      sync.Mutex
			charged int
			errs    []error
		)
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				ok, err := l.Take(t.Context(), "burst", burst)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					errs = append(errs, err)
				}
				if ok {
					charged++
				}
			}()
		}
		close(start)
		wg.Wait()
		if len(errs) > 0 || charged != burst.Max {
			t.Fatalf("%d of %d concurrent Takes charged (errors %v), want %d", charged, n, errs, burst.Max)
		}
	})
}

func TestMemoryLimiterContract(t *testing.T) {
	limiterSuite(t, func(t *testing.T) Limiter { return NewMemoryLimiter(0, nil) })
}

func TestMemoryLimiterWindow(t *testing.T) {
	c := schools.NewClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	m := NewMemoryLimiter(0, c.Now)
	l := Limit{Max: 3, Window: 10 * time.Minute}
	for i := 0; i < l.Max; i++ {
		mustTake(t, m, "k", l, true)
		c.Advance(time.Minute)
	}
	mustTake(t, m, "k", l, false)
	// The window counts from the first charge: later ones and refunds do not move it.
	if err := m.Refund(t.Context(), "k"); err != nil {
		t.Fatal(err)
	}
	mustTake(t, m, "k", l, true)
	c.Advance(l.Window - 3*time.Minute)
	mustTake(t, m, "k", l, true)
	for i := 1; i < l.Max; i++ {
		mustTake(t, m, "k", l, true)
	}
	mustTake(t, m, "k", l, false)
	if err := m.Reset(t.Context(), "k"); err != nil {
		t.Fatal(err)
	}
	if m.Len() != 0 {
		t.Errorf("Reset did not forget: len %d", m.Len())
	}
}

func TestMemoryLimiterIsBounded(t *testing.T) {
	c := schools.NewClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	m := NewMemoryLimiter(200, c.Now)
	ctx := t.Context()
	l := Limit{Max: 1, Window: time.Minute}
	for i := 0; i < 1000; i++ {
		_, _ = m.Take(ctx, fmt.Sprint("k", i), l)
	}
	if m.Len() != 200 {
		t.Errorf("holds %d keys, want 200", m.Len())
	}
	// The newest keys are kept; the oldest were dropped.
	if ok, _ := m.Take(ctx, "k999", l); ok {
		t.Error("the newest key was dropped")
	}
	if ok, _ := m.Take(ctx, "k0", l); !ok {
		t.Error("the oldest key was kept")
	}
	// Expired keys are swept as calls arrive (the Take of k0 above replaced the oldest key).
	c.Advance(time.Minute)
	for i := 0; i < 2; i++ {
		_ = m.Refund(ctx, "x")
	}
	if m.Len() != 200-2*sweepBatch {
		t.Errorf("after two sweeps: %d keys", m.Len())
	}
}
