package bench

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = ms(i + 1)
	}
	for _, tc := range []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 50, 0},
		{"one value is every percentile (p50)", []time.Duration{ms(7)}, 50, ms(7)},
		{"one value is every percentile (p99)", []time.Duration{ms(7)}, 99, ms(7)},
		{"1..100 p50", hundred, 50, ms(50)},
		{"1..100 p90", hundred, 90, ms(90)},
		{"1..100 p99", hundred, 99, ms(99)},
		{"1..100 p100 is the maximum", hundred, 100, ms(100)},
		{"1..100 p0.5 is the minimum", hundred, 0.5, ms(1)},
		// Nearest rank: ceil(0.5*4) = 2nd value, a measured one, not the mean of the middle two.
		{"even count p50", []time.Duration{ms(1), ms(2), ms(3), ms(4)}, 50, ms(2)},
		{"ten values p90", []time.Duration{ms(1), ms(2), ms(3), ms(4), ms(5), ms(6), ms(7), ms(8), ms(9), ms(10)}, 90, ms(9)},
		{"ten values p99 rounds up to the last", []time.Duration{ms(1), ms(2), ms(3), ms(4), ms(5), ms(6), ms(7), ms(8), ms(9), ms(10)}, 99, ms(10)},
		{"a tail outlier shows at p99 of 100", append(append([]time.Duration{}, hundred[:99]...), ms(5000)), 99, ms(99)},
		{"and at p100", append(append([]time.Duration{}, hundred[:99]...), ms(5000)), 100, ms(5000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Percentile(tc.sorted, tc.p); got != tc.want {
				t.Errorf("Percentile(p%v) = %v, want %v", tc.p, got, tc.want)
			}
		})
	}
}

func TestRunLoadStopsAtTheRequestCap(t *testing.T) {
	var calls atomic.Int64
	res := RunLoad(t.Context(), Bounds{Concurrency: 4, Duration: 10 * time.Second, Requests: 37}, func(context.Context, int) error {
		calls.Add(1)
		return nil
	})
	if res.Requests != 37 || calls.Load() != 37 {
		t.Fatalf("requests = %d, calls = %d, want 37", res.Requests, calls.Load())
	}
	if len(res.Latencies) != 37 || res.Errors != 0 || res.Exhausted {
		t.Fatalf("result = %+v", res)
	}
	for i := 1; i < len(res.Latencies); i++ {
		if res.Latencies[i] < res.Latencies[i-1] {
			t.Fatal("latencies are not sorted")
		}
	}
}

// TestRunLoadStopsAtTheDuration: a run with no request cap ends (the test's own timeout is the
// bound; how long it takes is the machine's business), and a worker that got to run kept
// going until the duration had passed.
func TestRunLoadStopsAtTheDuration(t *testing.T) {
	var calls atomic.Int64
	res := RunLoad(t.Context(), Bounds{Concurrency: 2, Duration: 100 * time.Millisecond}, func(context.Context, int) error {
		calls.Add(1)
		time.Sleep(5 * time.Millisecond)
		return nil
	})
	if int64(res.Requests) != calls.Load() {
		t.Fatalf("%d requests counted, %d made", res.Requests, calls.Load())
	}
	if res.Requests > 0 && (res.Elapsed < 100*time.Millisecond || res.RPS() <= 0) {
		t.Fatalf("a run of 100ms: %+v", res)
	}
}

func TestRunLoadCountsErrorsAndKeepsSamples(t *testing.T) {
	var n atomic.Int64
	res := RunLoad(t.Context(), Bounds{Concurrency: 3, Duration: 10 * time.Second, Requests: 30}, func(context.Context, int) error {
		if n.Add(1)%3 == 0 {
			return errors.New("every third fails")
		}
		return nil
	})
	if res.Requests != 30 || res.Errors != 10 {
		t.Fatalf("requests %d, errors %d, want 30 and 10", res.Requests, res.Errors)
	}
	if len(res.ErrorSamples) != 1 || res.ErrorSamples[0] != "every third fails" {
		t.Fatalf("samples = %q (one distinct message expected)", res.ErrorSamples)
	}
}

func TestRunLoadEndsWhenInputsRunOut(t *testing.T) {
	sup := &supplyOf[int]{items: []int{1, 2, 3, 4, 5}}
	res := RunLoad(t.Context(), Bounds{Concurrency: 3, Duration: 10 * time.Second}, func(context.Context, int) error {
		_, err := sup.take()
		return err
	})
	if res.Requests != 5 || !res.Exhausted || res.Errors != 0 {
		t.Fatalf("result = %+v, want 5 requests and exhausted", res)
	}
}

// TestRunLoadStopsWhenTheContextEnds: no request starts once the context has ended. The 10th
// request cancels it; a request that began after the 10th (on the other worker, before the
// cancel landed) waits for the cancel, so that however the workers are scheduled the run is
// the 10 requests and at most one more.
func TestRunLoadStopsWhenTheContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	var n atomic.Int64
	res := RunLoad(ctx, Bounds{Concurrency: 2, Duration: time.Minute}, func(ctx context.Context, _ int) error {
		switch k := n.Add(1); {
		case k == 10:
			cancel()
		case k > 10:
			<-ctx.Done()
		}
		return nil
	})
	if res.Requests < 10 || res.Requests > 11 {
		t.Fatalf("requests = %d, want the run to stop right after the 10th", res.Requests)
	}
}

func TestRunLoadReportsWindows(t *testing.T) {
	var mu sync.Mutex
	var windows []Window
	res := RunLoad(t.Context(), Bounds{
		Concurrency: 2, Duration: 10 * time.Second, Requests: 40,
		Every: 10 * time.Millisecond,
		OnWindow: func(w Window) {
			mu.Lock()
			windows = append(windows, w)
			mu.Unlock()
		},
	}, func(context.Context, int) error {
		time.Sleep(time.Millisecond)
		return nil
	})
	mu.Lock()
	defer mu.Unlock()
	total := 0
	for _, w := range windows {
		total += w.Requests
	}
	if len(windows) == 0 || total != res.Requests {
		t.Fatalf("%d windows adding up to %d requests, want %d", len(windows), total, res.Requests)
	}
}

// TestRunLoadKeepsToTheRate: at 200 requests a second for 250ms the schedule has 50 slots
// (0, 5ms, ..., 245ms), so no more than 50 requests can be issued however fast the Op is; an
// instant Op run unpaced makes hundreds of thousands in that time. How many of the 50 a busy
// machine gets to is not asserted.
func TestRunLoadKeepsToTheRate(t *testing.T) {
	var calls atomic.Int64
	res := RunLoad(t.Context(), Bounds{Concurrency: 4, Duration: 250 * time.Millisecond, Rate: 200}, func(context.Context, int) error {
		calls.Add(1)
		return nil
	})
	if res.Scheduled != 50 {
		t.Errorf("the schedule has room for %d requests, want 50", res.Scheduled)
	}
	if res.Requests > 50 || calls.Load() > 50 {
		t.Fatalf("%d requests in a 250ms run paced at 200/s, at most 50 allowed", res.Requests)
	}
}

// TestScheduleSlots: the schedule's room is the number of slots n/rate before the duration,
// exact at the boundaries where d x rate is a whole number (the slot at d is not in the run)
// and where it is not (the soak's 3s at 118.34/s has 356 slots, not the 355 of its rounded
// target).
func TestScheduleSlots(t *testing.T) {
	for _, tc := range []struct {
		rate float64
		d    time.Duration
		want int64
	}{
		{200, 250 * time.Millisecond, 50},
		{100, 200 * time.Millisecond, 20},
		{3, time.Second, 3},
		{2.5, time.Second, 3}, // 0, 0.4s, 0.8s
		{0.5, time.Minute, 30},
		{0.5, time.Millisecond, 1}, // the first request is due at once
		{118.34, 3 * time.Second, 356},
		{118.3, 3 * time.Second, 355},
		{1000.0 / 3, time.Second, 334}, // slot 333 is due at 999ms
		{10, 0, 0},
	} {
		if got := scheduleSlots(tc.rate, tc.d); got != tc.want {
			t.Errorf("scheduleSlots(%v, %s) = %d, want %d", tc.rate, tc.d, got, tc.want)
		}
		// The definition, checked directly: slot want-1 is in the run, slot want is not.
		if tc.want > 0 && slotOffset(tc.want-1, tc.rate) >= tc.d || slotOffset(tc.want, tc.rate) < tc.d {
			t.Errorf("rate %v over %s: slot %d is at %s", tc.rate, tc.d, tc.want, slotOffset(tc.want, tc.rate))
		}
	}
}

// TestRunLoadPacedCapTakesItsTime: 21 requests at 100 a second are due at 0, 10ms, ..., 200ms,
// so the run cannot end before the last is issued, whatever the concurrency. A timer never
// fires early, so this bound holds on any machine.
func TestRunLoadPacedCapTakesItsTime(t *testing.T) {
	start := time.Now()
	res := RunLoad(t.Context(), Bounds{Concurrency: 8, Duration: 10 * time.Second, Requests: 21, Rate: 100}, func(context.Context, int) error {
		return nil
	})
	if res.Requests != 21 {
		t.Fatalf("requests = %d, want 21", res.Requests)
	}
	if took := time.Since(start); took < 200*time.Millisecond {
		t.Fatalf("21 requests at 100/s took %s, the schedule wants at least 200ms", took)
	}
}

// TestRunLoadPacedStopsWhenTheContextEnds: a worker waiting for its slot gives up when the
// context ends, rather than sleeping until the slot.
func TestRunLoadPacedStopsWhenTheContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	var n atomic.Int64
	res := RunLoad(ctx, Bounds{Concurrency: 2, Duration: time.Hour, Rate: 0.01}, func(context.Context, int) error {
		if n.Add(1) == 1 {
			cancel()
		}
		return nil
	})
	// The second slot is 100s away, far more than any machine takes to cancel after the first
	// request: a worker that slept until it would then make the request.
	if res.Requests != 1 {
		t.Fatalf("requests = %d, want the run to end after the first", res.Requests)
	}
}

// TestRunLoadWindowPercentiles: each window reports the latencies of the requests that
// finished in it.
func TestRunLoadWindowPercentiles(t *testing.T) {
	var windows []Window
	RunLoad(t.Context(), Bounds{
		Concurrency: 1, Duration: 10 * time.Second, Requests: 5, Every: time.Hour,
		OnWindow: func(w Window) { windows = append(windows, w) },
	}, func(context.Context, int) error {
		time.Sleep(2 * time.Millisecond)
		return errors.New("fails")
	})
	// The hour never passes: the one window is the final, partial one, with every request.
	if len(windows) != 1 {
		t.Fatalf("%d windows", len(windows))
	}
	w := windows[0]
	if w.Requests != 5 || w.Errors != 5 || w.P50 < 2*time.Millisecond || w.P99 < w.P50 || w.Elapsed <= 0 || w.Since < w.Elapsed {
		t.Fatalf("window = %+v", w)
	}
}
