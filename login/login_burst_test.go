package login

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/proctorhq/proctor/password"
	"github.com/proctorhq/proctor/server/servertest/schools"
)

// limiters names the Limiters the sign-in tests run with: the process's own and, when the
// test Redis is set, the shared one.
func limiters(t *testing.T) map[string]func(t *testing.T) Limiter {
	m := map[string]func(t *testing.T) Limiter{
		"memory": func(t *testing.T) Limiter { return NewMemoryLimiter(0, nil) },
	}
	if u := testRedisURLOrEmpty(); u != "" {
		m["redis"] = func(t *testing.T) Limiter {
			_, prefix := schools.Redis(t, u)
			return newRedisLimiter(t, u, RedisOptions{KeyPrefix: prefix})
		}
	}
	return m
}

// postLogin submits the sign-in form with a token loaded before.
func (b *browser) postLogin(token, email, pw string) response {
	return b.do(http.MethodPost, LoginPath, map[string][]string{
		"email": {email}, "password": {pw}, "return_to": {"/x"}, CSRFField: {token},
	})
}

func browsers(e *env, n int, addr func(i int) string) []*browser {
	bs := make([]*browser, n)
	for i := range bs {
		bs[i] = e.browser(hostA, false)
		bs[i].addr = addr(i)
	}
	return bs
}

// TestLoginBurstEvaluatesAtMostTheBudget is the reported attack: 40 login pages, then 40
// wrong passwords for one account posted at once. Only the account's budget of them may be
// evaluated (looked up and hashed); the rest are refused with 429. Every hash is held in
// flight (a wrapped verify and channels, not timing) until each of the 40 requests has either
// reached the hash or been answered, so no attempt can finish, and be counted, before the
// others are decided. Before the attempt was charged ahead of the hash, all 40 reached it.
func TestLoginBurstEvaluatesAtMostTheBudget(t *testing.T) {
	for name, newLimiter := range limiters(t) {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, func(d *Deps) { d.Limiter, d.HashSlots = newLimiter(t), 40 })
			const n = 40
			entered, release := make(chan struct{}, n), make(chan struct{})
			e.h.verify = func(pw, hash string) error {
				entered <- struct{}{}
				<-release
				return password.Verify(pw, hash)
			}
			bs := browsers(e, n, func(i int) string { return fmt.Sprintf("192.0.2.%d", 10+i%4) })
			forms := make([]string, n)
			for i, b := range bs {
				forms[i] = b.loginForm()
			}
			statuses := make(chan int, n)
			start := make(chan struct{})
			for i, b := range bs {
				go func() {
					<-start
					statuses <- b.postLogin(forms[i], annEmail, "wrong password").StatusCode
				}()
			}
			close(start)
			counts := map[int]int{}
			hashing := 0
			for hashing+counts[http.StatusTooManyRequests] < n {
				select {
				case <-entered:
					hashing++
				case s := <-statuses:
					counts[s]++
					if s != http.StatusTooManyRequests {
						t.Fatalf("an attempt was answered %d while every hash was held", s)
					}
				}
			}
			close(release)
			for i := 0; i < hashing; i++ {
				counts[<-statuses]++
			}
			if hashing != DefaultAccountLimit.Max || e.store.lookups.Load() != int64(hashing) {
				t.Errorf("%d of %d concurrent attempts were evaluated (%d lookups), want the budget, %d", hashing, n, e.store.lookups.Load(), DefaultAccountLimit.Max)
			}
			if counts[http.StatusOK] != DefaultAccountLimit.Max || counts[http.StatusTooManyRequests] != n-DefaultAccountLimit.Max {
				t.Errorf("statuses %v, want %d failures and %d refusals", counts, DefaultAccountLimit.Max, n-DefaultAccountLimit.Max)
			}
		})
	}
}

// TestLoginBurstRightPasswordRefused: the right password posted while a burst of wrong ones
// holds the account's whole budget in flight does not sign in, nor does it afterwards. The
// wrong ones are held inside the hash (by a wrapped verify and channels, not timing) until the
// right one has been answered.
func TestLoginBurstRightPasswordRefused(t *testing.T) {
	for name, newLimiter := range limiters(t) {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, func(d *Deps) { d.Limiter, d.HashSlots = newLimiter(t), 40 })
			entered, release := make(chan struct{}, 40), make(chan struct{})
			e.h.verify = func(pw, hash string) error {
				entered <- struct{}{}
				if pw != annPassword {
					<-release
				}
				return password.Verify(pw, hash)
			}
			wrong := browsers(e, DefaultAccountLimit.Max, func(i int) string { return fmt.Sprintf("192.0.2.%d", 20+i) })
			forms := make([]string, len(wrong))
			for i, b := range wrong {
				forms[i] = b.loginForm()
			}
			var wg sync.WaitGroup
			for i, b := range wrong {
				wg.Add(1)
				go func() {
					defer wg.Done()
					b.postLogin(forms[i], annEmail, fmt.Sprint("guess ", i))
				}()
			}
			for range wrong {
				<-entered
			}
			// Every charge of the budget is in flight, none counted as a failure yet.
			right := e.browser(hostA, false)
			right.addr = "198.51.100.1"
			res := right.login(annEmail, annPassword, "/x")
			close(release)
			wg.Wait()
			if res.StatusCode != http.StatusTooManyRequests || right.cookies[SessionCookie] != nil {
				t.Fatalf("right password during the burst: %d (want 429)\n%s", res.StatusCode, res.body)
			}
			if res := right.login(annEmail, annPassword, "/x"); res.StatusCode != http.StatusTooManyRequests {
				t.Fatalf("right password after the burst: %d (want 429)", res.StatusCode)
			}
			if len(entered) != 0 {
				t.Errorf("%d more passwords were hashed", len(entered))
			}
		})
	}
}

// newOneSlotEnv is an env with one hash slot and no wait for it (HashWait is negative, so a
// refusal does not wait), whose password verifications stop inside the slot: each sends on
// entered, then waits for release to be closed (channels, not timing).
func newOneSlotEnv(t *testing.T) (e *env, entered, release chan struct{}) {
	e = newEnv(t, func(d *Deps) { d.HashSlots, d.HashWait = 1, -1 })
	entered, release = make(chan struct{}), make(chan struct{})
	e.h.verify = func(pw, hash string) error {
		entered <- struct{}{}
		<-release
		return password.Verify(pw, hash)
	}
	return e, entered, release
}

// TestLoginHashSlotsFull: with every hash slot taken, a sign-in is refused with 503 and
// Retry-After without being looked up or hashed, and its charge is given back. A slot is held
// by a sign-in stopped inside the hash (newOneSlotEnv).
func TestLoginHashSlotsFull(t *testing.T) {
	e, entered, release := newOneSlotEnv(t)
	held := e.browser(hostA, false)
	token := held.loginForm()
	done := make(chan response)
	go func() { done <- held.postLogin(token, annEmail, "guess held") }()
	<-entered

	b := e.browser(hostA, false)
	b.addr = "198.51.100.2"
	lookups := e.store.lookups.Load()
	res := b.login(annEmail, "guess refused", "/x")
	if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") != "1" || !strings.Contains(res.body, MsgLoginBusy) {
		t.Fatalf("with every slot taken: %d, Retry-After %q\n%s", res.StatusCode, res.Header.Get("Retry-After"), res.body)
	}
	if e.store.lookups.Load() != lookups {
		t.Error("a refused sign-in was looked up")
	}
	close(release)
	if r := <-done; r.StatusCode != http.StatusOK || !strings.Contains(r.body, MsgLoginFailed) {
		t.Fatalf("held sign-in: %d", r.StatusCode)
	}

	// The refused attempt cost nothing: the held one spent one charge, so Max-1 more failures
	// are evaluated before the account is limited.
	e.h.verify = password.Verify
	for i := 1; i < DefaultAccountLimit.Max; i++ {
		if r := b.login(annEmail, "guess", "/x"); r.StatusCode != http.StatusOK {
			t.Fatalf("failure %d after the refusal: %d", i+1, r.StatusCode)
		}
	}
	if r := b.login(annEmail, annPassword, "/x"); r.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("after the budget: %d", r.StatusCode)
	}
}

// TestHashGate: the semaphore hands a freed slot to a waiter, and a waiter whose request ended
// gives up. Channels only: the waits that could time out are an hour long.
func TestHashGate(t *testing.T) {
	g := newHashGate(2, -1)
	if !g.acquire(t.Context()) || !g.acquire(t.Context()) {
		t.Fatal("free slots refused")
	}
	if g.acquire(t.Context()) {
		t.Fatal("a third slot of two")
	}

	waiting := newHashGate(1, 1<<62)
	waiting.acquire(t.Context())
	got := make(chan bool)
	go func() { got <- waiting.acquire(t.Context()) }()
	waiting.release()
	if !<-got {
		t.Error("a waiter did not get the freed slot")
	}
	ctx, cancel := context.WithCancel(t.Context())
	go func() { got <- waiting.acquire(ctx) }()
	cancel()
	if <-got {
		t.Error("a waiter whose request ended took a slot")
	}
}
