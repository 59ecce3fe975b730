package login

import (
	"container/list"
	"context"
	"fmt"
	"sync"
	"time"
)

// Limit is an attempt budget: a key may be charged Max times within Window, counted from its
// first charge; after that it is refused until the window ends.
type Limit struct {
	Max    int
	Window time.Duration
}

// Or is l, or def when l is the zero Limit (a Deps field left unset).
func (l Limit) Or(def Limit) Limit {
	if l == (Limit{}) {
		return def
	}
	return l
}

// Check refuses a budget that could never be charged: Max must be at least 1 and Window
// positive.
func (l Limit) Check() error {
	if l.Max < 1 || l.Window <= 0 {
		return fmt.Errorf("a rate limit needs Max >= 1 and a positive Window, got %+v", l)
	}
	return nil
}

// Default budgets for failed sign-ins. An account gets few tries, since guessing one member's
// password is the attack; an address gets more, since a school's members may share one (a
// campus, a company proxy).
var (
	DefaultAccountLimit = Limit{Max: 5, Window: 15 * time.Minute}
	DefaultAddressLimit = Limit{Max: 20, Window: 15 * time.Minute}
)

// Limiter counts attempts per key. The caller owns the policy (which keys, which Limit); a
// Limiter only counts, so that an in-memory one and a shared one (Redis, one Lua script per
// call) are interchangeable and pass the same tests (limiter_suite_test.go).
//
// An attempt is charged before the password is checked and refunded if it turns out not to be
// a failure (Take, then Refund). Take checks and charges in one atomic step: N attempts racing
// on one key can never be charged, and so evaluated, more than Max times. Checking first and
// counting the failure after the hash, as an earlier version did, let a burst of concurrent
// attempts all pass the check before any of them was counted.
type Limiter interface {
	// Take charges one attempt to key if fewer than l.Max are charged in its current window,
	// and reports whether it did. A key with no live window starts one of l.Window; later
	// charges do not move its end. A refused Take charges nothing.
	Take(ctx context.Context, key string, l Limit) (bool, error)
	// Refund gives back one attempt that Take charged to key (the sign-in succeeded, or was
	// never evaluated). The window's end does not move; a key with nothing charged is left alone.
	Refund(ctx context.Context, key string) error
	// Reset forgets key's count.
	Reset(ctx context.Context, key string) error
	// Spent reports whether key's budget under l is spent in its current window (a Take would
	// be refused), charging nothing: the member administration pages show a locked account
	// with it.
	Spent(ctx context.Context, key string, l Limit) (bool, error)
}

// DefaultMaxKeys bounds a MemoryLimiter: about 100 bytes a key, so some 10 MB at most.
const DefaultMaxKeys = 100_000

// sweepBatch bounds how many expired keys one call removes, so that no call pays for a long
// idle period all at once.
const sweepBatch = 64

// MemoryLimiter is a Limiter in the memory of one process: replicas do not share counts, so a
// deployment of n replicas allows up to n times the budget. Memory is bounded: expired keys are
// swept as calls arrive, and when maxKeys live keys are held the oldest window is dropped to
// make room (an attacker would need maxKeys fresh keys within one window to flush a count).
type MemoryLimiter struct {
	mu      sync.Mutex
	now     func() time.Time
	maxKeys int
	keys    map[string]*list.Element
	// order holds *failures by the start of their window, oldest first; with one Window per
	// key family that is also expiry order, which is what sweeping relies on.
	order *list.List
}

type failures struct {
	key   string
	count int
	until time.Time
}

// NewMemoryLimiter returns an empty limiter holding at most maxKeys keys (DefaultMaxKeys when
// maxKeys <= 0) and reading the time from now (time.Now when nil).
func NewMemoryLimiter(maxKeys int, now func() time.Time) *MemoryLimiter {
	return &MemoryLimiter{now: ClockOrNow(now), maxKeys: positiveOr(maxKeys, DefaultMaxKeys), keys: map[string]*list.Element{}, order: list.New()}
}

var _ Limiter = (*MemoryLimiter)(nil)

// Take implements Limiter.
func (m *MemoryLimiter) Take(_ context.Context, key string, l Limit) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.sweep(now)
	if f := m.live(key, now); f != nil {
		if f.count >= l.Max {
			return false, nil
		}
		f.count++
		return true, nil
	}
	if l.Max < 1 {
		return false, nil
	}
	for m.order.Len() >= m.maxKeys {
		m.remove(m.order.Front())
	}
	m.keys[key] = m.order.PushBack(&failures{key: key, count: 1, until: now.Add(l.Window)})
	return true, nil
}

// Refund implements Limiter.
func (m *MemoryLimiter) Refund(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.sweep(now)
	if f := m.live(key, now); f != nil && f.count > 0 {
		f.count--
	}
	return nil
}

// Reset implements Limiter.
func (m *MemoryLimiter) Reset(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if el, ok := m.keys[key]; ok {
		m.remove(el)
	}
	return nil
}

// Spent implements Limiter.
func (m *MemoryLimiter) Spent(_ context.Context, key string, l Limit) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	f := m.live(key, m.now())
	if f == nil {
		return l.Max < 1, nil
	}
	return f.count >= l.Max, nil
}

// Len returns how many keys are held.
func (m *MemoryLimiter) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.order.Len()
}

// live returns key's failures if its window is still open, dropping it if not.
func (m *MemoryLimiter) live(key string, now time.Time) *failures {
	el, ok := m.keys[key]
	if !ok {
		return nil
	}
	f := el.Value.(*failures)
	if !now.Before(f.until) {
		m.remove(el)
		return nil
	}
	return f
}

func (m *MemoryLimiter) sweep(now time.Time) {
	for i := 0; i < sweepBatch; i++ {
		el := m.order.Front()
		if el == nil || now.Before(el.Value.(*failures).until) {
			return
		}
		m.remove(el)
	}
}

func (m *MemoryLimiter) remove(el *list.Element) {
	delete(m.keys, el.Value.(*failures).key)
	m.order.Remove(el)
}
