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
	// MaxDuration bounds a scenario's timed run; MaxSoakDuration the one run of a soak.
	MaxDuration     = 5 * time.Minute
	MaxSoakDuration = 30 * time.Minute
	MaxConcurrency  = 256
)

// Bounds say how hard and how long RunLoad drives an Op.
type Bounds struct {
	Concurrency int
	// Duration stops issuing requests once it has passed since the start; requests in flight
	// then finish and are counted. It is required, and at most MaxDuration (MaxSoakDuration for
	// a soak).
	Duration time.Duration
	// Requests caps the requests issued across all workers; 0 is no cap.
	Requests int
	// Rate, when positive, paces the run at that many requests a second across all workers.
	// Request n (counted from 0 over every worker) is issued no earlier than n/Rate seconds
	// after the start: one evenly spaced schedule that the workers share, each taking the next
	// slot and waiting for its time. A worker whose slot is already past issues at once, so a
	// run that fell behind (a slow spell of the server) catches up as fast as its workers can;
	// a worker whose slot falls at or after Duration stops. Latency is timed from when the
	// request is issued, not from its slot. 0 is as fast as the workers go.
	Rate float64

	// Every and OnWindow, when both are set, report what happened in each window of Every while
	// the run goes on (the soak's reporting interval). OnWindow is called from one goroutine,
	// one window at a time, the last (partial) window after the workers have finished.
	Every    time.Duration
	OnWindow func(Window)
}

// Window is what happened during one interval of a run: the requests that finished in it.
type Window struct {
	Since    time.Duration // from the start of the run to the end of this window
	Elapsed  time.Duration // length of this window (the last one is usually shorter)
	Requests int
	Errors   int
	// P50 and P99 are the latency percentiles of this window's requests (nearest rank); 0
	// when none finished.
	P50, P99 time.Duration
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
	// Scheduled is how many requests a paced run's schedule had room for (scheduleSlots); 0
	// for an unpaced run. Requests never exceeds it, however fast or slow the machine.
	Scheduled int
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

// workerLog is what one worker of RunLoad recorded. mu guards latencies and errors, which the
// window reporter reads while the worker appends; it is only ever contended at a window's end.
type workerLog struct {
	mu        sync.Mutex
	latencies []time.Duration
	errors    int
	// samples and exhausted are the worker's alone until the run is over.
	samples   []string
	exhausted bool
}

// RunLoad calls op from b.Concurrency goroutines until b.Duration has passed, b.Requests have
// been issued, the Op reports ErrExhausted on every worker, or ctx ends; with b.Rate it keeps
// to that rate's schedule. Each worker records into its own log and the logs are merged at the
// end, so workers share nothing but one atomic counter. The Op gets ctx, not a context that
// ends at the deadline: a request in flight when time is up finishes and counts, rather than
// being cut off and reported as a failure.
func RunLoad(ctx context.Context, b Bounds, op Op) Result {
	conc := max(b.Concurrency, 1)
	logs := make([]workerLog, conc)
	var issued atomic.Int64
	start := time.Now()
	deadline := start.Add(b.Duration)

	var slots int64
	if b.Rate > 0 {
		slots = scheduleSlots(b.Rate, b.Duration)
	}

	stopWindows := b.watchWindows(start, logs)
	var wg sync.WaitGroup
	for w := range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec := &logs[w]
			for ctx.Err() == nil && time.Now().Before(deadline) {
				n := issued.Add(1) - 1
				if b.Requests > 0 && n >= int64(b.Requests) {
					return
				}
				if b.Rate > 0 && (n >= slots || !waitForSlot(ctx, start.Add(slotOffset(n, b.Rate)))) {
					return
				}
				t0 := time.Now()
				err := op(ctx, w)
				d := time.Since(t0)
				if errors.Is(err, ErrExhausted) {
					rec.exhausted = true
					return
				}
				rec.mu.Lock()
				rec.latencies = append(rec.latencies, d)
				if err != nil {
					rec.errors++
				}
				rec.mu.Unlock()
				if err != nil && len(rec.samples) < maxErrorSamples {
					rec.samples = append(rec.samples, err.Error())
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	stopWindows()

	out := Result{Elapsed: elapsed, Scheduled: int(slots)}
	for i := range logs {
		rec := &logs[i]
		out.Latencies = append(out.Latencies, rec.latencies...)
		out.Errors += rec.errors
		out.Exhausted = out.Exhausted || rec.exhausted
		for _, s := range rec.samples {
			if len(out.ErrorSamples) < maxErrorSamples && !slices.Contains(out.ErrorSamples, s) {
				out.ErrorSamples = append(out.ErrorSamples, s)
			}
		}
	}
	out.Requests = len(out.Latencies)
	slices.Sort(out.Latencies)
	return out
}

// slotOffset is when, after the start, request n of a run paced at rate requests a second is
// due.
func slotOffset(n int64, rate float64) time.Duration {
	return time.Duration(float64(n) / rate * float64(time.Second))
}

// scheduleSlots is how many requests a run paced at rate for d may issue: request n is due at
// slotOffset(n, rate), and the run has the slots due before d. It is a count, decided before
// the run starts: the requests a run makes never exceed it, and a machine fast enough to keep
// up makes exactly that many.
func scheduleSlots(rate float64, d time.Duration) int64 {
	// The first n with slotOffset(n) >= d, found from the estimate d x rate and corrected for
	// the rounding of slotOffset's conversion to a Duration.
	n := int64(math.Ceil(d.Seconds() * rate))
	for n > 0 && slotOffset(n-1, rate) >= d {
		n--
	}
	for slotOffset(n, rate) < d {
		n++
	}
	return n
}

// waitForSlot waits until at and reports whether the request may go: not when ctx ends first.
// Slots due at or after the run's Duration are never waited for (scheduleSlots).
func waitForSlot(ctx context.Context, at time.Time) bool {
	d := time.Until(at)
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// watchWindows calls b.OnWindow every b.Every until the returned stop function is called, which
// also reports the last, partial window.
func (b Bounds) watchWindows(start time.Time, logs []workerLog) (stop func()) {
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
		// seen[i] is how many of worker i's latencies and errors earlier windows took.
		type cursor struct{ latencies, errors int }
		seen := make([]cursor, len(logs))
		last := start
		var window []time.Duration
		report := func() {
			window = window[:0]
			errs := 0
			for i := range logs {
				rec := &logs[i]
				rec.mu.Lock()
				window = append(window, rec.latencies[seen[i].latencies:]...)
				errs += rec.errors - seen[i].errors
				seen[i] = cursor{len(rec.latencies), rec.errors}
				rec.mu.Unlock()
			}
			now := time.Now()
			slices.Sort(window)
			b.OnWindow(Window{
				Since: now.Sub(start), Elapsed: now.Sub(last), Requests: len(window), Errors: errs,
				P50: Percentile(window, 50), P99: Percentile(window, 99),
			})
			last = now
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
