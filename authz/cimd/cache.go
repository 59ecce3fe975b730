package cimd

import (
	"container/list"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// entry is a valid document and what its response said about its freshness.
type entry struct {
	doc     Document
	fetched time.Time
	// lifetime is the freshness the response's cache headers gave (RFC 9111 section 4.2.1),
	// before any school's bounds are applied; unknown when no header said anything.
	lifetime time.Duration
	known    bool
	// private is set when the fetch was allowed to reach private addresses: a school without
	// that permission never uses such an entry, and fetches for itself instead.
	private bool
}

// cache holds valid documents by URL, least recently used evicted first. Only documents that
// passed validation are put (draft section 5.2: errors and invalid documents MUST NOT be
// cached). How long an entry is believed depends on the school asking, so entries are kept
// until evicted or replaced, and freshness is judged on each get.
type cache struct {
	mu    sync.Mutex
	max   int
	order *list.List // of *cacheItem, most recently used first
	items map[string]*list.Element
}

type cacheItem struct {
	url string
	e   entry
}

func newCache(size int) *cache {
	return &cache{max: size, order: list.New(), items: make(map[string]*list.Element)}
}

// get returns the document at url if it is fresh for bounds lower..upper at now and usable under
// allowPrivate.
func (c *cache) get(url string, now time.Time, lower, upper time.Duration, allowPrivate bool) (Document, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[url]
	if !ok {
		return Document{}, false
	}
	e := el.Value.(*cacheItem).e
	if e.private && !allowPrivate {
		return Document{}, false
	}
	if age := now.Sub(e.fetched); age < 0 || age >= e.ttl(lower, upper) {
		return Document{}, false
	}
	c.order.MoveToFront(el)
	return e.doc, true
}

// put stores or replaces the entry for url and evicts the least recently used beyond max.
func (c *cache) put(url string, e entry) {
	if c.max <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[url]; ok {
		el.Value.(*cacheItem).e = e
		c.order.MoveToFront(el)
		return
	}
	c.items[url] = c.order.PushFront(&cacheItem{url: url, e: e})
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.items, last.Value.(*cacheItem).url)
	}
}

func (c *cache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

// ttl is how long the entry is believed by a school with bounds lower..upper. The draft (section
// 5.2) lets the authorization server bound what the cache headers say; a response that says
// nothing is kept for the lower bound, the most conservative reading.
func (e entry) ttl(lower, upper time.Duration) time.Duration {
	d := lower
	if e.known {
		d = e.lifetime
	}
	return min(max(d, lower), upper)
}

// freshness reads a response's freshness lifetime (RFC 9111 section 4.2.1): no-store and
// no-cache allow no reuse (we do not revalidate), max-age wins over Expires, and the Age
// header's time already spent in other caches is subtracted (section 4.2.3). known is false
// when the response carries none of these.
func freshness(h http.Header, now time.Time) (lifetime time.Duration, known bool) {
	maxAge, hasMaxAge := time.Duration(0), false
	for _, line := range h.Values("Cache-Control") {
		for _, dir := range strings.Split(line, ",") {
			name, value, _ := strings.Cut(strings.TrimSpace(dir), "=")
			switch strings.ToLower(strings.TrimSpace(name)) {
			case "no-store", "no-cache":
				return 0, true
			case "max-age":
				secs, err := strconv.ParseInt(strings.Trim(strings.TrimSpace(value), `"`), 10, 64)
				if err != nil || secs < 0 {
					// An invalid max-age is treated as stale (RFC 9111 section 4.2.1).
					return 0, true
				}
				if secs > int64(365*24*time.Hour/time.Second) {
					secs = int64(365 * 24 * time.Hour / time.Second)
				}
				if !hasMaxAge || time.Duration(secs)*time.Second < maxAge {
					maxAge, hasMaxAge = time.Duration(secs)*time.Second, true
				}
			}
		}
	}
	var age time.Duration
	if v := h.Get("Age"); v != "" {
		if secs, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil && secs > 0 && secs < 1<<31 {
			age = time.Duration(secs) * time.Second
		}
	}
	switch {
	case hasMaxAge:
		return nonNegative(maxAge - age), true
	case h.Get("Expires") != "":
		exp, err := http.ParseTime(h.Get("Expires"))
		if err != nil {
			// An invalid date, such as "0", means already expired (RFC 9111 section 5.3).
			return 0, true
		}
		// Expires is compared with the origin's own clock (its Date header) when it sent one,
		// so a skewed clock at either end does not stretch the lifetime.
		base := now
		if d, err := http.ParseTime(h.Get("Date")); err == nil {
			base = d
		}
		return nonNegative(exp.Sub(base) - age), true
	}
	return 0, false
}

func nonNegative(d time.Duration) time.Duration {
	if d < 0 {
		return 0
	}
	return d
}
