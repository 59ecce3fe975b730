package cimd

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/proctorhq/proctor/authz"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/server/servertest/schools"
)

// bust is the URL of path with a query that defeats the cache, as an attacker would send it.
func bust(s *docServer, path string, n int) string { return fmt.Sprintf("%s?bust=%d", s.url(path), n) }

// otherSchool is a second school with the same policy as school.
func otherSchool() *school.School {
	t := testSchool(devPolicy())
	t.SchoolID, t.Subdomain = 2, "south"
	return t
}

// wantLimited fails unless err is a refusal by the fetch limits, worded for the member.
func wantLimited(t *testing.T, err error, what string) {
	t.Helper()
	var ce *authz.ClientError
	if !errors.Is(err, ErrFetchLimited) || !errors.As(err, &ce) || !strings.Contains(ce.Description, "Try again") {
		t.Fatalf("%s: %v, want a refusal by the fetch limits", what, err)
	}
}

func TestFetchLimitPerHost(t *testing.T) {
	ca := newTestCA(t)
	s := newDocServer(t, ca)
	s.handle("/client.json", serveDoc(nil))
	c := newClock()
	d := newDocuments(ca, c)
	burst := DefaultFetchLimits.PerHost.Burst

	// A burst of cache-busting client_ids at one instant: the host's bucket allows Burst
	// fetches, and every other request is refused without reaching the host.
	for i := range 2 * burst {
		_, err := d.Resolve(t.Context(), testSchool(devPolicy()), bust(s, "/client.json", i))
		if i < burst && err != nil {
			t.Fatalf("fetch %d: %v", i, err)
		}
		if i >= burst {
			wantLimited(t, err, fmt.Sprintf("fetch %d", i))
		}
	}
	if n := s.hits.Load(); n != int64(burst) {
		t.Fatalf("%d fetches for %d requests, want %d", n, 2*burst, burst)
	}
	// Another school cannot fetch from that host either: the host's budget is shared.
	_, err := d.Resolve(t.Context(), otherSchool(), bust(s, "/client.json", 1000))
	wantLimited(t, err, "another school, same host")
	// What was fetched is still served from the cache.
	if _, err := d.Resolve(t.Context(), testSchool(devPolicy()), bust(s, "/client.json", 0)); err != nil {
		t.Fatalf("a cached document: %v", err)
	}
	// The bucket refills one fetch each Every.
	c.Advance(DefaultFetchLimits.PerHost.Every)
	if _, err := d.Resolve(t.Context(), testSchool(devPolicy()), bust(s, "/client.json", 2000)); err != nil {
		t.Fatalf("after one refill interval: %v", err)
	}
	_, err = d.Resolve(t.Context(), testSchool(devPolicy()), bust(s, "/client.json", 2001))
	wantLimited(t, err, "the second fetch after one refill interval")
	if n := s.hits.Load(); n != int64(burst)+1 {
		t.Errorf("%d fetches, want %d", n, burst+1)
	}
}

func TestFetchLimitPerSchool(t *testing.T) {
	ca := newTestCA(t)
	s := newDocServer(t, ca)
	s.handle("/client.json", serveDoc(nil))
	d := New(nil, Options{RootCAs: ca.Pool, Now: newClock().Now, Resolver: schools.StaticResolver("127.0.0.1"),
		Limits: FetchLimits{PerSchool: Rate{Burst: 3, Every: time.Minute}, PerHost: Rate{Burst: 100, Every: time.Second}}})
	for i := range 5 {
		_, err := d.Resolve(t.Context(), testSchool(devPolicy()), bust(s, "/client.json", i))
		if i < 3 && err != nil {
			t.Fatalf("fetch %d: %v", i, err)
		}
		if i >= 3 {
			wantLimited(t, err, fmt.Sprintf("fetch %d", i))
		}
	}
	// One school spending its budget leaves another's whole.
	for i := range 3 {
		if _, err := d.Resolve(t.Context(), otherSchool(), bust(s, "/client.json", 100+i)); err != nil {
			t.Fatalf("the other school's fetch %d: %v", i, err)
		}
	}
	if n := s.hits.Load(); n != 6 {
		t.Errorf("%d fetches, want 6", n)
	}
}

func TestFetchLimitConcurrent(t *testing.T) {
	ca := newTestCA(t)
	s := newDocServer(t, ca)
	arrived := make(chan struct{}, 10)
	release := make(chan struct{})
	s.handle("/slow.json", func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-release
		serveDoc(nil)(w, r)
	})
	s.handle("/client.json", serveDoc(nil))
	d := New(nil, Options{RootCAs: ca.Pool, Now: newClock().Now, Resolver: schools.StaticResolver("127.0.0.1"),
		Limits: FetchLimits{Concurrent: 2}})

	var wg sync.WaitGroup
	errs := make(chan error, 3)
	resolve := func(id string) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := d.Resolve(context.Background(), testSchool(devPolicy()), id)
			errs <- err
		}()
	}
	resolve(bust(s, "/slow.json", 1))
	resolve(bust(s, "/slow.json", 2))
	for range 2 {
		select {
		case <-arrived:
		case <-time.After(time.Minute):
			t.Fatal("the slow fetches never reached the site")
		}
	}
	// Two fetches are under way: a third URL is refused at once, while a caller of a URL
	// already being fetched waits for that fetch (or, if it ended first, finds its document
	// cached) and costs no fetch.
	_, err := d.Resolve(t.Context(), testSchool(devPolicy()), s.url("/client.json"))
	wantLimited(t, err, "a third concurrent fetch")
	resolve(bust(s, "/slow.json", 1))
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("a slow fetch: %v", err)
		}
	}
	if n := s.hits.Load(); n != 2 {
		t.Errorf("%d fetches, want 2 (the third caller's URL was already being fetched)", n)
	}
	// Both finished: a new fetch starts again.
	if _, err := d.Resolve(t.Context(), testSchool(devPolicy()), s.url("/client.json")); err != nil {
		t.Fatalf("after the slow fetches ended: %v", err)
	}
}

func TestFetchFailureHold(t *testing.T) {
	ca := newTestCA(t)
	s := newDocServer(t, ca)
	var mu sync.Mutex
	status := http.StatusNotFound
	s.handle("/client.json", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		st := status
		mu.Unlock()
		if st != http.StatusOK {
			w.WriteHeader(st)
			return
		}
		serveDoc(nil)(w, r)
	})
	c := newClock()
	d := newDocuments(ca, c)
	for i := range 5 {
		if _, err := d.Resolve(t.Context(), testSchool(devPolicy()), s.url("/client.json")); !errors.Is(err, ErrStatus) {
			t.Fatalf("resolve %d: %v, want the fetch's own failure", i, err)
		}
	}
	if n := s.hits.Load(); n != 1 {
		t.Fatalf("%d fetches of a failing URL within the hold, want 1", n)
	}
	// The document is repaired; the hold ends and the URL is fetched, not answered from memory.
	mu.Lock()
	status = http.StatusOK
	mu.Unlock()
	c.Advance(DefaultFetchLimits.FailureHold - time.Second)
	if _, err := d.Resolve(t.Context(), testSchool(devPolicy()), s.url("/client.json")); !errors.Is(err, ErrStatus) {
		t.Fatalf("within the hold: %v", err)
	}
	c.Advance(time.Second)
	if _, err := d.Resolve(t.Context(), testSchool(devPolicy()), s.url("/client.json")); err != nil {
		t.Fatalf("after the hold: %v", err)
	}
	if n := s.hits.Load(); n != 2 {
		t.Errorf("%d fetches, want 2", n)
	}
}

func TestFetchGateBoundsKeys(t *testing.T) {
	g := newFetchGate(FetchLimits{PerHost: Rate{Burst: 1, Every: time.Hour}, PerSchool: Rate{Burst: 1 << 30, Every: time.Nanosecond}, Concurrent: 1 << 30})
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for i := range maxLimitKeys {
		key := flightKey{url: fmt.Sprint(i)}
		if err := g.admit(key, 1, fmt.Sprintf("h%d.example", i), now); err != nil {
			t.Fatalf("host %d: %v", i, err)
		}
		g.done(key, errors.New("failed"), now)
	}
	if len(g.hosts.m) != maxLimitKeys || len(g.failed) != maxLimitKeys {
		t.Fatalf("%d host buckets, %d held failures", len(g.hosts.m), len(g.failed))
	}
	// Every bucket is empty and every hold live: a new host is refused, not let in by
	// forgetting another's count.
	if err := g.admit(flightKey{url: "new"}, 1, "new.example", now); !errors.Is(err, ErrFetchLimited) {
		t.Fatalf("a new host with every bucket in use: %v", err)
	}
	// Once the buckets refilled and the holds ended, they are swept to make room.
	later := now.Add(time.Hour)
	if err := g.admit(flightKey{url: "new"}, 1, "new.example", later); err != nil {
		t.Fatalf("a new host after the others refilled: %v", err)
	}
	g.done(flightKey{url: "new"}, errors.New("failed"), later)
	if len(g.hosts.m) > maxLimitKeys || len(g.failed) > maxLimitKeys || g.inFlight != 0 {
		t.Errorf("%d host buckets, %d held failures, %d in flight", len(g.hosts.m), len(g.failed), g.inFlight)
	}
}
