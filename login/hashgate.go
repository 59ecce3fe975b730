package login

import (
	"context"
	"runtime"
	"time"
)

// MaxDefaultHashSlots caps the default number of password hashes run at once. Each argon2id
// verification holds password.Default's 64 MiB for its whole run, so the slots are a memory
// bound as much as a CPU one: 4 slots hold at most 256 MiB, whatever the machine.
const MaxDefaultHashSlots = 4

// DefaultHashWait is how long a sign-in waits for a free hash slot before it is turned away
// with 503 and Retry-After. A hash takes a few hundred milliseconds, so a queue of a dozen or
// more drains within it (a class signing in at once, or a busy machine's slower hashes): a
// member would rather wait a few seconds than read an error. A waiting sign-in holds no
// hashing memory, only its parked goroutine, so the wait bounds latency, not memory.
const DefaultHashWait = 5 * time.Second

// DefaultHashSlots is the number of hashes allowed at once when Deps.HashSlots is zero: half
// the processors Go may use (at least one, at most MaxDefaultHashSlots). A hash runs on one
// lane (password.Default.Threads), so more hashes than processors only add memory and
// latency; keeping the other half free leaves the rest of the server (discovery, token,
// API requests) cores to run on during a sign-in burst.
func DefaultHashSlots() int {
	return min(max(runtime.GOMAXPROCS(0)/2, 1), MaxDefaultHashSlots)
}

// hashGate bounds how many password hashes run at once: a counting semaphore on a buffered
// channel.
type hashGate struct {
	slots chan struct{}
	wait  time.Duration
}

func newHashGate(slots int, wait time.Duration) *hashGate {
	return &hashGate{slots: make(chan struct{}, slots), wait: wait}
}

// acquire takes a slot, waiting at most g.wait and never past ctx's end (a browser that went
// away frees its place in the queue). It reports whether a slot was taken; release gives it
// back.
func (g *hashGate) acquire(ctx context.Context) bool {
	select {
	case g.slots <- struct{}{}:
		return true
	default:
	}
	if g.wait <= 0 {
		return false
	}
	t := time.NewTimer(g.wait)
	defer t.Stop()
	select {
	case g.slots <- struct{}{}:
		return true
	case <-t.C:
		return false
	case <-ctx.Done():
		return false
	}
}

// release collects the finished hash's garbage, then gives the slot back. The hash's 64 MiB is
// garbage from the moment it ends, but the collector paces itself by the heap's growth: left
// alone during a burst it lets the heap reach about twice what the running hashes hold, and the
// garbage of finished hashes, not the running ones, sets the peak. Collecting before the next
// waiter allocates keeps the heap near what the running hashes hold (docs/benchmarks.md, "Login
// burst"). A collection is cheap beside a hash: the blocks hold no pointers, so there is little
// to mark.
func (g *hashGate) release() {
	runtime.GC()
	<-g.slots
}
