package cimd

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"golang.org/x/time/rate"
)

// ErrFetchLimited is why a document was not fetched: the school, the document's host or the
// whole process has made as many fetches as it may for now.
var ErrFetchLimited = errors.New("cimd: document fetch refused by the fetch limits")

// Rate is a token bucket: up to Burst fetches at once, and one more each Every after that.
type Rate struct {
	Burst int
	Every time.Duration
}

// FetchLimits bound the outbound fetches that unauthenticated requests can cause. Every
// GET /oauth/authorize with a client_id URL the cache does not hold costs a fetch, so without
// them anyone could make the server fetch as often as they send requests (a new query string
// each time defeats the cache), at a host of their choosing where a school's policy is open,
// or at an allowed client's host where it is not. Only fetches that are started count: a
// cache hit, or joining a fetch of the same URL already under way, costs nothing.
type FetchLimits struct {
	// PerSchool bounds the fetches one school's requests cause, whatever the host.
	PerSchool Rate
	// PerHost bounds the fetches from one host name, summed over every school, so that this
	// server cannot be turned against a client's site.
	PerHost Rate
	// Concurrent bounds fetches under way at once in the process; one more is refused rather
	// than queued, since a member is waiting on the page that asked.
	Concurrent int
	// FailureHold is how long a URL whose fetch or document failed is not fetched again;
	// requests meanwhile get the same failure. Nothing of the failed response is kept.
	FailureHold time.Duration
}

// DefaultFetchLimits suit a school whose members use a handful of document clients: each URL
// is fetched about once per cache lifetime (at least CacheMin), so tens of fetches a minute
// are far above honest use.
var DefaultFetchLimits = FetchLimits{
	PerSchool:   Rate{Burst: 30, Every: 2 * time.Second},
	PerHost:     Rate{Burst: 10, Every: 6 * time.Second},
	Concurrent:  16,
	FailureHold: 30 * time.Second,
}

// maxLimitKeys bounds the buckets and held failures kept (a few hundred bytes each). Host
// names and URLs are chosen by whoever sends the request, so both maps need a bound.
const maxLimitKeys = 10_000

// withDefaults fills unset fields from DefaultFetchLimits.
func (l FetchLimits) withDefaults() FetchLimits {
	d := DefaultFetchLimits
	if l.PerSchool.Burst <= 0 || l.PerSchool.Every <= 0 {
		l.PerSchool = d.PerSchool
	}
	if l.PerHost.Burst <= 0 || l.PerHost.Every <= 0 {
		l.PerHost = d.PerHost
	}
	l.Concurrent = positiveOr(l.Concurrent, d.Concurrent)
	l.FailureHold = positiveOr(l.FailureHold, d.FailureHold)
	return l
}

// fetchGate decides whether a fetch may start, and remembers recent failures. Its methods are
// called with Documents.mu held, which serialises them.
type fetchGate struct {
	limits   FetchLimits
	schools  buckets
	hosts    buckets
	inFlight int
	failed   map[flightKey]heldFailure
}

type heldFailure struct {
	err   error
	until time.Time
}

func newFetchGate(l FetchLimits) *fetchGate {
	l = l.withDefaults()
	return &fetchGate{
		limits:  l,
		schools: buckets{rate: l.PerSchool, m: map[string]*rate.Limiter{}},
		hosts:   buckets{rate: l.PerHost, m: map[string]*rate.Limiter{}},
		failed:  map[flightKey]heldFailure{},
	}
}

// admit reports why a fetch of key for school, from host, may not start now (nil when it may,
// and it is then counted as under way until done is called).
func (g *fetchGate) admit(key flightKey, school int64, host string, now time.Time) error {
	if f, ok := g.failed[key]; ok {
		if now.Before(f.until) {
			// The failure itself, so the member reads what is wrong with the document.
			return fmt.Errorf("%w (not fetched again for %s)", f.err, f.until.Sub(now))
		}
		delete(g.failed, key)
	}
	if g.inFlight >= g.limits.Concurrent {
		return fmt.Errorf("%w: %d fetches under way", ErrFetchLimited, g.inFlight)
	}
	s, ok := g.schools.reserve(strconv.FormatInt(school, 10), now)
	if !ok {
		return fmt.Errorf("%w: school %d has fetched its share", ErrFetchLimited, school)
	}
	if _, ok := g.hosts.reserve(host, now); !ok {
		s.CancelAt(now)
		return fmt.Errorf("%w: host %q has been fetched its share", ErrFetchLimited, host)
	}
	g.inFlight++
	return nil
}

// done ends a fetch admitted for key; a failure is held for FailureHold from now.
func (g *fetchGate) done(key flightKey, err error, now time.Time) {
	g.inFlight--
	if err == nil {
		return
	}
	if len(g.failed) >= maxLimitKeys {
		for k, f := range g.failed {
			if !now.Before(f.until) {
				delete(g.failed, k)
			}
		}
	}
	// Still full of live holds: this failure goes unremembered; the rate limits still apply.
	if len(g.failed) < maxLimitKeys {
		g.failed[key] = heldFailure{err: err, until: now.Add(g.limits.FailureHold)}
	}
}

// buckets are token buckets by key, created full on first use.
type buckets struct {
	rate Rate
	m    map[string]*rate.Limiter
}

// reserve takes a token from key's bucket if one is there now.
func (b *buckets) reserve(key string, now time.Time) (*rate.Reservation, bool) {
	l, ok := b.m[key]
	if !ok {
		if len(b.m) >= maxLimitKeys {
			b.sweep(now)
		}
		if len(b.m) >= maxLimitKeys {
			// Every bucket is in use: refusing is safe, forgetting one would refill it.
			return nil, false
		}
		l = rate.NewLimiter(rate.Every(b.rate.Every), b.rate.Burst)
		b.m[key] = l
	}
	r := l.ReserveN(now, 1)
	if !r.OK() || r.DelayFrom(now) > 0 {
		r.CancelAt(now)
		return nil, false
	}
	return r, true
}

// sweep forgets the buckets that have refilled: a new bucket would be the same.
func (b *buckets) sweep(now time.Time) {
	for k, l := range b.m {
		if l.TokensAt(now) >= float64(b.rate.Burst) {
			delete(b.m, k)
		}
	}
}
