package bench

import (
	"context"
	"errors"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Op is one unit of load: usually one HTTP request, for authcode the three requests of a browser
// flow. worker is the index (0 to Concurrency-1) of the goroutine calling it, so that an Op can
// keep per-worker state (a cookie jar, a refresh-token chain) without locks.
type Op func(ctx context.Context, worker int) error

// ErrExhausted ends a worker without counting a request: a scenario whose inputs were minted in
// advance (codes, grants) returns it when they are used up.
var ErrExhausted = errors.New("bench: the minted inputs are used up")

// Limits on any one load run. Every loop the command runs is bounded in time as well as count,
// so a run always ends by itself.
const (
	MaxDuration    = 5 * time.Minute
	MaxConcurrency = 256
)

// Bounds say how hard and how long RunLoad drives an Op.
type Bounds struct {
	Concurrency int
	// Duration stops issuing requests once it has passed since the start; requests in flight
	// then finish and are counted. It is required, and at most MaxDuration.
	Duration time.Duration
	// Requests caps the requests issued across all workers; 0 is no cap.
	Requests int

	// Every and OnWindow, when both are set, report the requests and errors of each window of
	// Every while the run goes on. This is the seam a soak mode (long runs that watch throughput
	// and the server's memory drift) hangs off; a plain run needs only the final Result.
	Every    time.Duration
	OnWindow func(Window)
}

// Window is what happened during one interval of a run.
type Window struct {
	Since    time.Duration // from the start of the run to the end of this window
	Requests int
	Errors   int
}

// Result is one run's outcome.
type Result struct {
	Requests int
	Errors   int
	// Elapsed is from the first request issued to the last one finished.
	Elapsed time.Duration
	// Latencies holds every request's latency (failed ones too), sorted ascending.
	Latencies []time.Duration
	// ErrorSamples keeps the first few distinct error messages, to say what went wrong.
	ErrorSamples []string
	// Exhausted is set when the run ended because the Op's inputs ran out rather than at its
	// bounds.
	Exhausted bool
}

// maxErrorSamples bounds Result.ErrorSamples.
const maxErrorSamples = 5

// RPS is requests per second over the elapsed time.
func (r Result) RPS() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Requests) / r.Elapsed.Seconds()
}

// Percentile returns the p-th percentile (0 < p <= 100) of the sorted latencies.
func (r Result) Percentile(p float64) time.Duration { return Percentile(r.Latencies, p) }

// Percentile returns the p-th percentile of sorted by the nearest-rank method: the smallest
// value with at least p percent of the values at or below it. Nearest rank always returns a
// latency that was measured, never an interpolation between two; 0 for no values.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(n)))
	rank = min(max(rank, 1), n)
	return sorted[rank-1]
}

// RunLoad calls op from b.Concurrency goroutines until b.Duration has passed, b.Requests have
// been issued, the Op reports ErrExhausted on every worker, or ctx ends. Each worker records
// into its own slice and the slices are merged at the end, so workers share nothing but two
// atomic counters. The Op gets ctx, not a context that ends at the deadline: a request in flight
// when time is up finishes and counts, rather than being cut off and reported as a failure.
func RunLoad(ctx context.Context, b Bounds, op Op) Result {
	type workerResult struct {
		latencies []time.Duration
		errors    int
		samples   []string
		exhausted bool
	}
	conc := max(b.Concurrency, 1)
	results := make([]workerResult, conc)
	var issued, finished, failed atomic.Int64
	start := time.Now()
	deadline := start.Add(b.Duration)

	stopWindows := b.watchWindows(start, &finished, &failed)
	var wg sync.WaitGroup
	for w := range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := &results[w]
			for ctx.Err() == nil && time.Now().Before(deadline) {
				if b.Requests > 0 && issued.Add(1) > int64(b.Requests) {
					return
				}
				t0 := time.Now()
				err := op(ctx, w)
				d := time.Since(t0)
				if errors.Is(err, ErrExhausted) {
					res.exhausted = true
					return
				}
				res.latencies = append(res.latencies, d)
				finished.Add(1)
				if err != nil {
					res.errors++
					failed.Add(1)
					if len(res.samples) < maxErrorSamples {
						res.samples = append(res.samples, err.Error())
					}
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	stopWindows()

	out := Result{Elapsed: elapsed}
	for _, res := range results {
		out.Latencies = append(out.Latencies, res.latencies...)
		out.Errors += res.errors
		out.Exhausted = out.Exhausted || res.exhausted
		for _, s := range res.samples {
			if len(out.ErrorSamples) < maxErrorSamples && !slices.Contains(out.ErrorSamples, s) {
				out.ErrorSamples = append(out.ErrorSamples, s)
			}
		}
	}
	out.Requests = len(out.Latencies)
	slices.Sort(out.Latencies)
	return out
}

// watchWindows calls b.OnWindow every b.Every until the returned stop function is called, which
// also reports the last, partial window.
func (b Bounds) watchWindows(start time.Time, finished, failed *atomic.Int64) (stop func()) {
	if b.Every <= 0 || b.OnWindow == nil {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(b.Every)
		defer tick.Stop()
		var lastReq, lastErr int64
		report := func() {
			req, errs := finished.Load(), failed.Load()
			b.OnWindow(Window{Since: time.Since(start), Requests: int(req - lastReq), Errors: int(errs - lastErr)})
			lastReq, lastErr = req, errs
		}
		for {
			select {
			case <-tick.C:
				report()
			case <-done:
				report()
				return
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}
