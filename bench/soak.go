package bench

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/proctorhq/proctor/bench/flow"
	"github.com/proctorhq/proctor/config"
)

// A soak (RunSoak) is one long run instead of the scenario table, asking whether the server
// holds steady under sustained load: no errors, flat memory, flat p99, and token tables kept
// bounded by the purge job. Its workload is a cycle that mints what it consumes, so that it can
// run for minutes without inputs made in advance; its rate is 70% of the peak rate of that same
// cycle, measured just before; and every window it records the server's memory and the row
// counts of the tables the OAuth flows grow (soak_verdict.go judges them).

// The soak school's lifetimes: the shortest the school rules allow (config/school.go), so that
// rows expire within the run and the purge job deletes some every time it runs.
const (
	soakAccessLifetime  = time.Minute
	soakRefreshLifetime = time.Minute
	soakCodeLifetime    = 10 * time.Second
	// serverPurgeEvery is how often `proctor serve` deletes expired rows (purgeInterval in
	// server/purge.go), counted from its start.
	serverPurgeEvery = time.Minute
)

// SoakLoad is the fraction of the measured peak rate a soak is paced at: hard enough to be
// load, with room for the server to keep up, so that a drift in latency or memory is the
// server's and not a queue building up in front of it.
const SoakLoad = 0.7

// How often a worker's cycle ends with a revocation, and with a sign-out and a new sign-in.
// Both are offset by the worker's index so that the workers do not all revoke in the same
// moment.
const (
	soakRevokeEvery    = 5
	soakSignOutInEvery = 25
)

// rowCountTimeout bounds one window's row count.
const rowCountTimeout = 5 * time.Second

// soakTables are the tables the soak's flows grow, with the short names the window table uses:
// those the purge job deletes expired rows from (storage/gormstore/purge.go). Login sessions do
// not expire within a soak; they come and go with its sign-outs and sign-ins.
var soakTables = []struct{ name, label string }{
	{"oauth_token_pairs", "pairs"},
	{"oauth_authorization_codes", "codes"},
	{"oauth_pkce_sessions", "pkce"},
	{"oauth_oidc_sessions", "oidc"},
	{"login_sessions", "logins"},
}

// soakStep is one step of the cycle: one Op of the run, counted and timed on its own (one HTTP
// request, or for authcode the three of the flow and for a sign-out and sign-in the four of
// the forms).
type soakStep int

const (
	stepAuthcode soakStep = iota
	stepUserinfo
	stepGraphQLViewer
	stepMCPCall
	stepRefresh
	stepRevoke
	stepSignOutIn
	numSoakSteps
)

var soakStepNames = [numSoakSteps]string{"authcode", "userinfo", "graphql-viewer", "mcp-call", "refresh", "revoke", "sign-out-in"}

// soakCycleAbout describes the cycle for the report.
const soakCycleAbout = "per worker: authcode (consent page, approval, code exchange with PKCE; one step), userinfo, " +
	"graphql-viewer and mcp-call with its access token, a refresh, graphql-viewer with the new access token; " +
	"every 5th cycle a revocation of the refresh token, every 25th a sign-out and a new sign-in through the forms (one step)"

// soakCycle is the soak's Op: each call runs the next step of the calling worker's cycle. Each
// step is a scenario's request (flow, scenarios.go) made with the tokens the worker's own
// cycle minted.
type soakCycle struct {
	e   *env
	mcp *mcpCaller // nil when the server offers no member tool
	// workers[w] is only touched by worker w.
	workers []soakWorker
	counts  [numSoakSteps]atomic.Int64
}

type soakWorker struct {
	plan   []soakStep
	next   int
	cycles int
	tokens flow.Tokens
}

// newSoakCycle prepares the cycle: the MCP handshake and tool, or a note why mcp-call is left
// out.
func newSoakCycle(ctx context.Context, e *env) (*soakCycle, string, error) {
	c := &soakCycle{e: e, workers: make([]soakWorker, e.concurrency)}
	mcp, err := newMCPCaller(ctx, e)
	switch {
	case errors.Is(err, errUnavailable):
		return c, "mcp-call left out: " + strings.TrimPrefix(err.Error(), errUnavailable.Error()+": "), nil
	case err != nil:
		return nil, "", err
	}
	c.mcp = mcp
	return c, "mcp-call calls the tool " + mcp.tool, nil
}

// plan is worker w's steps for its cycle number n.
func (c *soakCycle) plan(w, n int) []soakStep {
	p := []soakStep{stepAuthcode, stepUserinfo, stepGraphQLViewer}
	if c.mcp != nil {
		p = append(p, stepMCPCall)
	}
	// The first use of the new access token retires the pair the refresh replaced.
	p = append(p, stepRefresh, stepGraphQLViewer)
	if (n+w)%soakRevokeEvery == soakRevokeEvery-1 {
		p = append(p, stepRevoke)
	}
	if (n+w)%soakSignOutInEvery == soakSignOutInEvery-1 {
		p = append(p, stepSignOutIn)
	}
	return p
}

func (c *soakCycle) op(ctx context.Context, w int) error {
	sw := &c.workers[w]
	if sw.next >= len(sw.plan) {
		sw.plan, sw.next = c.plan(w, sw.cycles), 0
		sw.cycles++
	}
	step := sw.plan[sw.next]
	c.counts[step].Add(1)
	if err := c.do(ctx, w, sw, step); err != nil {
		// The rest of the cycle needs what this step should have made: start a new one.
		sw.next = len(sw.plan)
		return err
	}
	sw.next++
	return nil
}

func (c *soakCycle) do(ctx context.Context, w int, sw *soakWorker, step soakStep) error {
	b := c.e.browsers[w]
	switch step {
	case stepAuthcode:
		tr, err := b.Grant(ctx)
		if err != nil {
			return err
		}
		sw.tokens = tr
		return nil
	case stepUserinfo:
		return userinfoCall(ctx, b, sw.tokens.AccessToken)
	case stepGraphQLViewer:
		return graphQLViewerCall(ctx, b, sw.tokens.AccessToken)
	case stepMCPCall:
		return c.mcp.call(ctx, b, sw.tokens.AccessToken)
	case stepRefresh:
		tr, err := b.Refresh(ctx, sw.tokens.RefreshToken)
		if err != nil {
			return err
		}
		sw.tokens = tr
		return nil
	case stepRevoke:
		return b.revoke(ctx, sw.tokens.RefreshToken)
	case stepSignOutIn:
		if err := b.Logout(ctx); err != nil {
			return err
		}
		learners := c.e.s.learners
		return b.login(ctx, learners[w%len(learners)])
	}
	return fmt.Errorf("unknown soak step %d", step)
}

// mix is how many times each step ran.
func (c *soakCycle) mix() map[string]int {
	out := map[string]int{}
	for s := range numSoakSteps {
		if n := c.counts[s].Load(); n > 0 {
			out[soakStepNames[s]] = int(n)
		}
	}
	return out
}

// rowCounter counts the soak tables' rows through a connection of the bench's own, with the
// driver and settings of the insert baseline.
type rowCounter struct {
	db    *sql.DB
	query string
}

func openRowCounter(d config.Database) (*rowCounter, error) {
	db, err := openSQL(d)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	// One statement, so that the counts are of one moment (one snapshot on PostgreSQL, one
	// read transaction on SQLite).
	parts := make([]string, len(soakTables))
	for i, t := range soakTables {
		parts[i] = "(SELECT COUNT(*) FROM " + t.name + ")"
	}
	return &rowCounter{db: db, query: "SELECT " + strings.Join(parts, ", ")}, nil
}

func (c *rowCounter) count(ctx context.Context) (map[string]int64, error) {
	ctx, cancel := context.WithTimeout(ctx, rowCountTimeout)
	defer cancel()
	counts := make([]int64, len(soakTables))
	dest := make([]any, len(counts))
	for i := range counts {
		dest[i] = &counts[i]
	}
	if err := c.db.QueryRowContext(ctx, c.query).Scan(dest...); err != nil {
		return nil, fmt.Errorf("count rows: %w", err)
	}
	out := make(map[string]int64, len(counts))
	for i, t := range soakTables {
		out[t.name] = counts[i]
	}
	return out, nil
}

func (c *rowCounter) close() error { return c.db.Close() }

// soakSampler turns the runner's windows into report windows, adding the server's memory and
// CPU and the row counts at the end of each.
type soakSampler struct {
	srv  target
	rows *rowCounter
	last Usage
	// haveLast is set once last holds a reading to take CPU time from.
	haveLast bool
}

func (s *soakSampler) sample(ctx context.Context, w Window) SoakWindow {
	ms := func(d time.Duration) float64 { return round(float64(d)/float64(time.Millisecond), 2) }
	sw := SoakWindow{
		EndSeconds: round(w.Since.Seconds(), 1), Seconds: round(w.Elapsed.Seconds(), 3),
		Requests: w.Requests, Errors: w.Errors, P50MS: ms(w.P50), P99MS: ms(w.P99),
	}
	if w.Elapsed > 0 {
		sw.RPS = round(float64(w.Requests)/w.Elapsed.Seconds(), 1)
	}
	if u, ok := s.srv.usage(); ok {
		rss := u.RSS
		sw.ServerRSSBytes = &rss
		if s.haveLast {
			sw.ServerCPUMSPerRequest = cpuMSPerRequest(u.CPU-s.last.CPU, w.Requests)
		}
		s.last, s.haveLast = u, true
	}
	if rows, err := s.rows.count(ctx); err != nil {
		sw.RowsError = err.Error()
	} else {
		sw.Rows = rows
	}
	return sw
}

// RunSoak seeds a school with short lifetimes, starts the server, measures the peak rate of the
// soak cycle, then runs it paced at SoakLoad of that rate for opts.SoakDuration, recording a
// window every opts.SoakWindow, and judges the windows (judgeSoak). A report is returned
// whenever the run got as far as measuring, failed requests and a failed verdict included; err
// is for a run that could not be made.
func RunSoak(ctx context.Context, opts Options, d Deps) (*SoakReport, error) {
	opts.Soak = true
	o, err := checkRun(ctx, opts)
	if err != nil {
		return nil, err
	}
	crit := DefaultSoakCriteria(o.SoakWindow)
	rep := &SoakReport{
		RunInfo: runInfo(o), Data: o.Data,
		WarmupSeconds: o.Warmup.Seconds(), PeakSeconds: o.SoakPeak.Seconds(), DurationSeconds: o.SoakDuration.Seconds(),
		WindowSeconds: o.SoakWindow.Seconds(), Load: SoakLoad,
		Lifetimes: SoakLifetimes{
			AccessToken: soakAccessLifetime.String(), RefreshToken: soakRefreshLifetime.String(),
			AuthorizationCode: soakCodeLifetime.String(), PurgeInterval: serverPurgeEvery.String(),
		},
		Cycle: soakCycleAbout, Criteria: crit,
	}
	r, err := setUp(ctx, o, d)
	if err != nil {
		return nil, err
	}
	defer r.close()
	e, err := r.signIn(ctx, 0)
	if err != nil {
		return nil, err
	}
	cyc, note, err := newSoakCycle(ctx, e)
	if err != nil {
		return nil, err
	}
	rep.Note = note
	rows, err := openRowCounter(r.ws.cfg.Server.Database)
	if err != nil {
		return nil, err
	}
	defer rows.close()
	if _, err := rows.count(ctx); err != nil {
		return nil, err
	}

	conc := o.Concurrency
	if o.Warmup > 0 {
		r.logf("warm-up")
		rep.addErrors("warm-up", RunLoad(ctx, Bounds{Concurrency: conc, Duration: o.Warmup, Requests: warmupPerWorker * conc}, cyc.op))
	}
	r.logf("peak: the cycle unpaced for %s", o.SoakPeak)
	r.srv.resetPeak()
	before, ok1 := r.srv.usage()
	peak := RunLoad(ctx, Bounds{Concurrency: conc, Duration: o.SoakPeak}, cyc.op)
	after, ok2 := r.srv.usage()
	rep.Peak = measurement("peak", "the soak cycle, unpaced", peak)
	rep.Peak.setServerUsage(before, after, ok1 && ok2)
	rep.addErrors("peak", peak)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}

	// A server that fails under the peak run is not soaked: the verdict fails on the errors.
	if rep.Errors == 0 && peak.Requests > 0 {
		target := peak.RPS() * SoakLoad
		rep.TargetRPS = round(target, 1)
		r.logf("soak: %s at %.1f requests a second (%.0f%% of %.1f), a window every %s", o.SoakDuration, target, SoakLoad*100, peak.RPS(), o.SoakWindow)
		r.srv.resetPeak()
		before, ok1 := r.srv.usage()
		sampler := &soakSampler{srv: r.srv, rows: rows, last: before, haveLast: ok1}
		res := RunLoad(ctx, Bounds{
			Concurrency: conc, Duration: o.SoakDuration, Rate: target, Every: o.SoakWindow,
			OnWindow: func(w Window) {
				sw := sampler.sample(ctx, w)
				rep.Windows = append(rep.Windows, sw)
				r.logf("%s", sw.logLine())
			},
		}, cyc.op)
		after, ok2 := r.srv.usage()
		rep.Soak = measurement("soak", fmt.Sprintf("the soak cycle paced at %.0f%% of the peak rate", SoakLoad*100), res)
		rep.Soak.setServerUsage(before, after, ok1 && ok2)
		rep.ScheduledRequests = res.Scheduled
		rep.addErrors("soak", res)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	rep.Mix = cyc.mix()
	if err := r.stopServer(); err != nil {
		return nil, err
	}
	rep.Machine.LoadAfter = loadAverage()
	rep.Verdict = judgeSoak(rep.Windows, o.SoakWindow, rep.TargetRPS, rep.Errors, crit)
	return rep, nil
}

// addErrors counts a phase's failed requests into the report, with its error samples.
func (r *SoakReport) addErrors(phase string, res Result) {
	r.Errors += res.Errors
	for _, s := range res.ErrorSamples {
		if len(r.ErrorSamples) < 3*maxErrorSamples {
			r.ErrorSamples = append(r.ErrorSamples, phase+": "+s)
		}
	}
}
