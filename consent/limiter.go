package consent

import (
	"container/list"
	"context"
	"sync"
	"time"
)

// Limit is a failure budget: a key may fail Max times within Window, counted from its first
// failure; after that it is refused until the window ends.
type Limit struct {
	Max    int
	Window time.Duration
}

// Default budgets for failed sign-ins. An account gets few tries, since guessing one member's
// password is the attack; an address gets more, since a school's members may share one (a
// campus, a company proxy).
var (
	DefaultAccountLimit = Limit{Max: 5, Window: 15 * time.Minute}
	DefaultAddressLimit = Limit{Max: 20, Window: 15 * time.Minute}
)

// Limiter counts failures per key. The caller owns the policy (which keys, which Limit); a
// Limiter only counts, so that an in-memory one and a shared one (Redis: INCR and an expiry
// of Window on the first failure) are interchangeable.
type Limiter interface {
	// Allow reports whether key has failed fewer than l.Max times in its current window.
	Allow(ctx context.Context, key string, l Limit) (bool, error)
	// Fail records one failure of key; a key with no live window starts one of l.Window.
	Fail(ctx context.Context, key string, l Limit) error
	// Reset forgets key's failures.
	Reset(ctx context.Context, key string) error
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
	if maxKeys <= 0 {
		maxKeys = DefaultMaxKeys
	}
	if now == nil {
		now = time.Now
	}
	return &MemoryLimiter{now: now, maxKeys: maxKeys, keys: map[string]*list.Element{}, order: list.New()}
}

var _ Limiter = (*MemoryLimiter)(nil)

// Allow implements Limiter.
func (m *MemoryLimiter) Allow(_ context.Context, key string, l Limit) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.sweep(now)
	f := m.live(key, now)
	return f == nil || f.count < l.Max, nil
}

// Fail implements Limiter.
func (m *MemoryLimiter) Fail(_ context.Context, key string, l Limit) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.sweep(now)
	if f := m.live(key, now); f != nil {
		f.count++
		return nil
	}
	for m.order.Len() >= m.maxKeys {
		m.remove(m.order.Front())
	}
	m.keys[key] = m.order.PushBack(&failures{key: key, count: 1, until: now.Add(l.Window)})
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
