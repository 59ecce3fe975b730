package systemtest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/proctorhq/proctor/bench/flow"
)

// Bounds of the load the server is killed in.
const (
	killWorkers = 4
	// killAfter is how long the load runs at least before the kill, and killAtMost how long it
	// may run while waiting for enough of each operation.
	killAfter  = 2 * time.Second
	killAtMost = 2 * time.Minute
	// Operations completed before the kill, at least.
	minExchanges = 8
	minRefreshes = 8
	minRevokes   = 2
	// A worker refreshes a grant 1 to maxRefreshes times before it starts another.
	maxRefreshes = 4
)

// outcome is what the client knows of one request.
type outcome int

const (
	notSent   outcome = iota
	done              // the answer arrived
	uncertain         // sent, but the server died before answering: it may or may not have happened
)

// pairRecord is one access and refresh token pair the server returned.
type pairRecord struct {
	access, refresh string
	// used: the client presented the access token (userinfo answered 200), which commits the
	// rotation: the pair this one replaced is revoked. useUncertain: that request was cut off.
	used, useUncertain bool
}

// grantRecord is everything the client did with one authorization.
type grantRecord struct {
	worker   int
	code     string
	verifier flow.PKCE
	exchange outcome
	pairs    []pairRecord
	// refreshInFlight: a refresh of the last pair was cut off (its new pair, if made, is
	// unknown to the client).
	refreshInFlight bool
	revoke          outcome
}

// loadLog is what every worker recorded, guarded by mu.
type loadLog struct {
	mu       sync.Mutex
	grants   []*grantRecord
	failures []string

	exchanges, refreshes, revokes  atomic.Int64
	requestsCutOff, workersStopped atomic.Int64
	killed                         atomic.Bool
}

func (l *loadLog) add(g *grantRecord) {
	l.mu.Lock()
	l.grants = append(l.grants, g)
	l.mu.Unlock()
}

// fail records an unexpected answer; before the kill every request must succeed.
func (l *loadLog) fail(format string, args ...any) {
	l.mu.Lock()
	l.failures = append(l.failures, fmt.Sprintf(format, args...))
	l.mu.Unlock()
}

// cutOff classifies a transport error: after the kill it is expected (the request is marked
// uncertain); before it, it is a failure.
func (l *loadLog) cutOff(what string, err error) {
	if l.killed.Load() {
		l.requestsCutOff.Add(1)
		return
	}
	l.fail("%s failed before the kill: %v", what, err)
}

// answered reports whether a worker's request was answered 200. A request cut off is logged
// (cutOff) once uncertain has recorded that the client cannot know its outcome; any other
// answer is a failure.
func (l *loadLog) answered(what string, resp flow.Response, err error, uncertain func()) bool {
	if err != nil {
		uncertain()
		l.cutOff(what, err)
		return false
	}
	if resp.Status != http.StatusOK {
		l.fail("%s: %s", what, resp)
		return false
	}
	return true
}

// newPair sends a worker's token request (what: exchange or refresh) and records the pair the
// server returned in g, counted in count. sent is told whether the request was answered (a
// request cut off leaves its outcome unknown to the client) before the cut-off or the answer is
// logged. It reports whether a pair was recorded.
func (l *loadLog) newPair(ctx context.Context, c *at, g *grantRecord, what string, form url.Values, count *atomic.Int64, sent func(answered bool)) bool {
	resp, err := c.TokenRequest(ctx, form)
	sent(err == nil)
	if err != nil {
		l.cutOff(what, err)
		return false
	}
	tr, err := flow.ParseTokens(what, resp)
	if err != nil {
		l.fail("%v", err)
		return false
	}
	count.Add(1)
	g.pairs = append(g.pairs, pairRecord{access: tr.AccessToken, refresh: tr.RefreshToken})
	return true
}

// TestKillDuringLoad kills a server with SIGKILL while clients exchange codes, refresh and
// revoke, restarts it on the same database, and checks every token and code the clients were
// given against what the protocol promises.
func TestKillDuringLoad(t *testing.T) {
	needPostgres(t)
	ctx := t.Context()
	public := reserveAddr(t)
	R, s, proc := newDeployment(t, public, nil).serveAlone(false)

	browsers := make([]*browser, killWorkers)
	for w := range browsers {
		browsers[w] = newBrowser(s)
		if err := browsers[w].at(R).login(ctx); err != nil {
			t.Fatal(err)
		}
	}

	log := &loadLog{}
	loadCtx, stopLoad := context.WithTimeout(ctx, killAtMost+requestTimeout)
	defer stopLoad()
	var wg sync.WaitGroup
	for w := range killWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer log.workersStopped.Add(1)
			runWorker(loadCtx, w, browsers[w].at(R), log)
		}()
	}

	// Kill once the load has run killAfter and each operation happened often enough, with the
	// workers still running.
	start := time.Now()
	enough, _ := poll(killAtMost, 20*time.Millisecond, func() bool {
		return time.Since(start) >= killAfter && log.exchanges.Load() >= minExchanges &&
			log.refreshes.Load() >= minRefreshes && log.revokes.Load() >= minRevokes
	})
	if stopped := log.workersStopped.Load(); stopped > 0 {
		t.Errorf("%d workers stopped before the kill", stopped)
	}
	log.killed.Store(true)
	proc.signal(t, syscall.SIGKILL)
	if _, ok := proc.wait(time.Minute); !ok {
		t.Fatal("the server did not die of SIGKILL within a minute")
	}
	wg.Wait()
	stopLoad()
	if !enough {
		t.Errorf("within %s the load made only %d exchanges, %d refreshes, %d revocations (want %d, %d, %d)",
			killAtMost, log.exchanges.Load(), log.refreshes.Load(), log.revokes.Load(), minExchanges, minRefreshes, minRevokes)
	}
	for _, f := range log.failures {
		t.Error(f)
	}
	t.Logf("killed after %s: %d grants, %d exchanges, %d refreshes, %d revocations answered; %d requests got no answer (in flight or refused)",
		time.Since(start).Round(time.Millisecond), len(log.grants), log.exchanges.Load(), log.refreshes.Load(), log.revokes.Load(), log.requestsCutOff.Load())
	if t.Failed() {
		t.FailNow()
	}

	// Restart on the same database and configuration (the same ports).
	R.resetTransport()
	R.start(t)

	t.Run("doctor", func(t *testing.T) {
		res := cli(t, "", "", "doctor", "--config", R.configFile)
		if strings.Contains(res.stderr, `unknown command "doctor"`) {
			t.Skip("proctor doctor does not exist in this build: the consistency check could not run")
		}
		if res.code != 0 {
			t.Errorf("proctor doctor --config %s: exit %d (0 = consistent, 1 = findings, 2 = configuration error)\n%s%s",
				R.configFile, res.code, res.stdout, res.stderr)
			return
		}
		t.Logf("proctor doctor after the restart: exit 0: %s", strings.TrimSpace(res.stdout))
	})

	check := newBrowser(s).at(R)
	t.Run("tokens", func(t *testing.T) {
		checkTokens(ctx, t, check, log.grants)
	})
	t.Run("codes", func(t *testing.T) {
		checkCodes(ctx, t, check, s, log.grants)
	})
}

// runWorker runs grants until its context ends or a request is cut off: authorize, exchange,
// then 1 to maxRefreshes refreshes (presenting the new access token half of the time), and
// for one grant in three a revocation.
func runWorker(ctx context.Context, w int, c *at, log *loadLog) {
	rnd := rand.New(rand.NewPCG(uint64(w), uint64(time.Now().UnixNano())))
	for ctx.Err() == nil {
		g := &grantRecord{worker: w, verifier: flow.NewPKCE()}
		code, err := c.Authorize(ctx, g.verifier)
		if err != nil {
			// An authorization cut off leaves nothing the client holds.
			if flow.IsTransport(err) {
				log.cutOff("authorize", err)
			} else if !log.killed.Load() {
				log.fail("authorize: %v", err)
			}
			return
		}
		g.code = code
		log.add(g)

		exchanged := log.newPair(ctx, c, g, "exchange", c.ExchangeForm(c.ClientID, code, g.verifier), &log.exchanges, func(answered bool) {
			g.exchange = uncertain
			if answered {
				g.exchange = done
			}
		})
		if !exchanged {
			return
		}

		for range 1 + rnd.IntN(maxRefreshes) {
			last := &g.pairs[len(g.pairs)-1]
			if rnd.IntN(2) == 0 {
				resp, err := c.Userinfo(ctx, last.access)
				if !log.answered("userinfo with a fresh access token", resp, err, func() { last.useUncertain = true }) {
					return
				}
				last.used = true
			}
			refreshed := log.newPair(ctx, c, g, "refresh", c.RefreshForm(c.ClientID, last.refresh), &log.refreshes, func(answered bool) {
				g.refreshInFlight = !answered
			})
			if !refreshed {
				return
			}
		}

		if rnd.IntN(3) == 0 {
			resp, err := c.Revoke(ctx, g.pairs[len(g.pairs)-1].refresh, "refresh_token")
			if !log.answered("revoke", resp, err, func() { g.revoke = uncertain }) {
				return
			}
			g.revoke = done
			log.revokes.Add(1)
		}
	}
}

// checkTokens presents every access token and the last refresh token of every grant after the
// restart. Within a grant the access tokens are presented oldest first, since presenting one
// commits the rotation and revokes the pair before it.
func checkTokens(ctx context.Context, t *testing.T, c *at, grants []*grantRecord) {
	var live, rotated, revoked, unsure, refreshed int
	for _, g := range grants {
		if len(g.pairs) == 0 {
			continue
		}
		name := fmt.Sprintf("worker %d grant %s…", g.worker, g.code[:8])
		switch g.revoke {
		case done:
			// Revoked by the client: every token of the grant is refused.
			for i, p := range g.pairs {
				expectUserinfo(ctx, t, c, fmt.Sprintf("%s pair %d (grant revoked) at userinfo after the restart", name, i), p.access, http.StatusUnauthorized)
			}
			expectRefresh(ctx, t, c, name+" last refresh token (grant revoked) after the restart", g.pairs[len(g.pairs)-1].refresh, false)
			revoked++
			continue
		case uncertain:
			// The revocation may or may not have been committed, but all or nothing: the last
			// access token and the last refresh token agree.
			last := g.pairs[len(g.pairs)-1]
			resp, err := c.Userinfo(ctx, last.access)
			if err != nil {
				t.Fatal(err)
			}
			switch resp.Status {
			case http.StatusOK:
				expectRefresh(ctx, t, c, name+" last refresh token (revocation not committed) after the restart", last.refresh, true)
			case http.StatusUnauthorized:
				expectRefresh(ctx, t, c, name+" last refresh token (revocation committed) after the restart", last.refresh, false)
			default:
				t.Errorf("%s: last access token after a revocation cut off: %s", name, resp)
			}
			unsure++
			continue
		}
		for i, p := range g.pairs {
			want := http.StatusOK
			what := fmt.Sprintf("%s pair %d of %d", name, i+1, len(g.pairs))
			if i+1 < len(g.pairs) {
				next := g.pairs[i+1]
				switch {
				case next.used:
					// The client presented the next access token: this pair was rotated out.
					want = http.StatusUnauthorized
					what += " (rotated out by the client)"
				case next.useUncertain:
					resp, err := c.Userinfo(ctx, p.access)
					if err != nil {
						t.Fatal(err)
					}
					if resp.Status != http.StatusOK && resp.Status != http.StatusUnauthorized {
						t.Errorf("%s (rotation cut off): %s", what, resp)
					}
					unsure++
					continue
				}
			}
			if want == http.StatusOK {
				live++
			} else {
				rotated++
			}
			expectUserinfo(ctx, t, c, what+" at userinfo after the restart", p.access, want)
		}
		// The last refresh token the client received is usable once, even when a refresh of
		// it was cut off (the client never saw its answer and may retry).
		expectRefresh(ctx, t, c, name+" last refresh token after the restart", g.pairs[len(g.pairs)-1].refresh, true)
		refreshed++
	}
	t.Logf("after the restart: %d access tokens live, %d rotated out, %d grants revoked, %d outcomes cut off by the kill, %d last refresh tokens usable",
		live, rotated, revoked, unsure, refreshed)
	if live == 0 || refreshed == 0 {
		t.Errorf("nothing live was checked (%d access tokens, %d refresh tokens): the load was too short", live, refreshed)
	}
}

// checkCodes exchanges every code again: one whose exchange was answered must be refused
// (invalid_grant); one whose exchange was cut off was either committed (refused now) or not
// (accepted now, once).
func checkCodes(ctx context.Context, t *testing.T, c *at, s *site, grants []*grantRecord) {
	var refused, cutOffCommitted, cutOffNot int
	for _, g := range grants {
		if g.exchange == notSent {
			continue
		}
		resp, err := c.TokenRequest(ctx, c.ExchangeForm(s.clientID, g.code, g.verifier))
		if err != nil {
			t.Fatal(err)
		}
		isInvalidGrant := resp.Status == http.StatusBadRequest && resp.OAuthError() == "invalid_grant"
		switch {
		case g.exchange == done && !isInvalidGrant:
			t.Errorf("worker %d: a code exchanged before the kill, again after the restart: %s, want 400 invalid_grant", g.worker, resp)
		case g.exchange == done:
			refused++
		case isInvalidGrant:
			cutOffCommitted++
		case resp.Status == http.StatusOK:
			cutOffNot++
		default:
			t.Errorf("worker %d: a code whose exchange was cut off by the kill: %s, want 200 or 400 invalid_grant", g.worker, resp)
		}
	}
	t.Logf("codes: %d exchanged before the kill and refused again; of those cut off, %d had been committed, %d had not",
		refused, cutOffCommitted, cutOffNot)
}
