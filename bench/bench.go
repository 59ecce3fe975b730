package bench

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Options are one run's settings (the command's flags).
type Options struct {
	// Scenarios to run, by name; empty runs them all.
	Scenarios   []string
	Concurrency int
	// Duration bounds each scenario's timed run (and each baseline's): at most MaxDuration.
	Duration time.Duration
	// Requests caps each scenario's timed run; 0 is no cap.
	Requests int
	// Warmup is the untimed run before each timed one (at most warmupPerWorker requests per
	// worker, so that it does not eat a minted scenario's inputs); 0 skips it.
	Warmup time.Duration
	// Pool is how many codes (exchange) and grants (revoke) are minted for a run without a
	// request cap; those scenarios end early when it is used up.
	Pool int

	Database string // "sqlite" or "postgres", as the server's database.driver
	// DSN of the PostgreSQL server; the run creates a schema of its own there and drops it.
	DSN string
	// Host is the loopback address the server listens on (default 127.0.0.1).
	Host string
	// InProcess serves from this process (Deps.Serve) instead of a `proctor serve` child; the
	// server's CPU and memory are then not reported.
	InProcess bool
	// Executable is the proctor binary the child runs.
	Executable string
	// Keep leaves the temporary directory (configuration, server log, SQLite database) and the
	// PostgreSQL schema in place.
	Keep bool
	// TempDir is where the temporary directory goes ("": the system's).
	TempDir string
	// Data is the curriculum seeded (zero: DefaultData).
	Data DataSize
	// ProfileDir, when set, receives a CPU profile of the server for each scenario's timed run
	// (<scenario>.pprof), read from the internal listener's /debug/pprof.
	ProfileDir string

	// Soak makes the run one soak (RunSoak) instead of the scenario table: the mixed cycle of
	// soak.go, first unpaced for SoakPeak to find its peak rate, then paced at SoakLoad of that
	// rate for SoakDuration (at most MaxSoakDuration), reported every SoakWindow. Scenarios,
	// Requests, Duration, Pool and ProfileDir do not apply to it.
	Soak         bool
	SoakDuration time.Duration
	SoakWindow   time.Duration
	SoakPeak     time.Duration

	Version string
	Command string
	// Log receives progress lines (nil: discarded).
	Log io.Writer
	// Resolver looks host names up for the loopback guard (nil: the system's).
	Resolver Resolver
}

// The database drivers a run may use: the server's database.driver values.
const (
	driverSQLite   = "sqlite"
	driverPostgres = "postgres"
)

// Defaults of the flags.
const (
	DefaultConcurrency = 16
	DefaultDuration    = 10 * time.Second
	DefaultWarmup      = 2 * time.Second
	DefaultPool        = 3000
	maxWarmup          = time.Minute
	maxPool            = 100_000
	// warmupPerWorker caps the warm-up in requests: enough to open every connection, fill the
	// server's caches and prepare its statements.
	warmupPerWorker = 8

	DefaultSoakDuration = 5 * time.Minute
	DefaultSoakWindow   = 10 * time.Second
	DefaultSoakPeak     = 15 * time.Second
	minSoakWindow       = 100 * time.Millisecond
	maxSoakWindow       = time.Minute
	maxSoakPeak         = time.Minute
	// minSoakWindows is the fewest windows a soak may have: the verdict compares the middle
	// and last thirds of them, two windows each at least.
	minSoakWindows = 6
)

// withDefaults fills unset options and checks them all, reporting every problem at once.
func (o Options) withDefaults() (Options, error) {
	o.Concurrency = cmp.Or(o.Concurrency, DefaultConcurrency)
	o.Duration = cmp.Or(o.Duration, DefaultDuration)
	o.Pool = cmp.Or(o.Pool, DefaultPool)
	o.Database = cmp.Or(o.Database, driverSQLite)
	o.Host = cmp.Or(o.Host, "127.0.0.1")
	o.Data = cmp.Or(o.Data, DefaultData)
	o.Log = cmp.Or(o.Log, io.Discard)
	if o.Soak {
		o.SoakDuration = cmp.Or(o.SoakDuration, DefaultSoakDuration)
		o.SoakWindow = cmp.Or(o.SoakWindow, DefaultSoakWindow)
		o.SoakPeak = cmp.Or(o.SoakPeak, DefaultSoakPeak)
	}
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if o.Soak {
		if len(o.Scenarios) > 0 {
			bad("--scenarios does not apply to --soak, which runs its own mixed cycle")
		}
		if o.Requests != 0 {
			bad("--requests does not apply to --soak, which is bounded by --soak-duration")
		}
		if o.ProfileDir != "" {
			bad("--profile does not apply to --soak")
		}
		if o.SoakWindow < minSoakWindow || o.SoakWindow > maxSoakWindow {
			bad("--soak-window must be %s to %s", minSoakWindow, maxSoakWindow)
		}
		if o.SoakDuration < 0 || o.SoakDuration > MaxSoakDuration {
			bad("--soak-duration must be positive and at most %s (a soak is bounded: minutes, not hours)", MaxSoakDuration)
		} else if o.SoakWindow > 0 && o.SoakDuration < minSoakWindows*o.SoakWindow {
			bad("--soak-duration must be at least %d windows of --soak-window (%s)", minSoakWindows, minSoakWindows*o.SoakWindow)
		}
		if o.SoakPeak < 0 || o.SoakPeak > maxSoakPeak {
			bad("--soak-peak must be positive and at most %s", maxSoakPeak)
		}
	} else if len(o.Scenarios) == 0 {
		o.Scenarios = ScenarioNames()
	}
	if o.Concurrency < 1 || o.Concurrency > MaxConcurrency {
		bad("--concurrency must be 1 to %d", MaxConcurrency)
	}
	if o.Duration < 0 || o.Duration > MaxDuration {
		bad("--duration must be positive and at most %s", MaxDuration)
	}
	if o.Requests < 0 {
		bad("--requests must not be negative")
	}
	if o.Warmup < 0 || o.Warmup > maxWarmup {
		bad("--warmup must be 0 to %s", maxWarmup)
	}
	if o.Pool < 1 || o.Pool > maxPool {
		bad("--pool must be 1 to %d", maxPool)
	}
	switch o.Database {
	case driverSQLite:
		if o.DSN != "" {
			bad("--dsn is for --database postgres; SQLite lives in the temporary directory")
		}
	case driverPostgres:
		if o.DSN == "" {
			bad("--database postgres needs --dsn")
		}
	default:
		bad("--database must be sqlite or postgres")
	}
	for _, name := range o.Scenarios {
		if _, ok := findScenario(name); !ok {
			bad("unknown scenario %q (known: %s)", name, strings.Join(ScenarioNames(), ", "))
		}
	}
	if !o.InProcess && o.Executable == "" {
		bad("the proctor binary to run as the server is not known")
	}
	if d := o.Data; d.Courses < 1 || d.Sections < 1 || d.Lectures < 1 {
		bad("the data size must have at least one course, section and lecture")
	}
	if len(problems) > 0 {
		return o, errors.New(strings.Join(problems, "; "))
	}
	// Scenarios run in their fixed order whatever order they were named in, each once: the
	// order is part of what is measured (see scenarios).
	var ordered []string
	for _, name := range ScenarioNames() {
		if slices.Contains(o.Scenarios, name) {
			ordered = append(ordered, name)
		}
	}
	o.Scenarios = ordered
	return o, nil
}

// Run seeds a school, starts the server, measures the baselines and every scenario, stops the
// server and returns the report. A report is returned whenever the run got as far as measuring,
// even with failed requests (Report.Errors); err is for a run that could not be made.
func Run(ctx context.Context, opts Options, d Deps) (*Report, error) {
	if opts.Soak {
		return nil, errors.New("a soak is run by RunSoak")
	}
	o, err := checkRun(ctx, opts)
	if err != nil {
		return nil, err
	}
	rep := &Report{
		RunInfo: runInfo(o), DurationSeconds: o.Duration.Seconds(),
		RequestCap: o.Requests, WarmupSeconds: o.Warmup.Seconds(), Data: o.Data,
	}
	if o.ProfileDir != "" {
		if err := os.MkdirAll(o.ProfileDir, 0o755); err != nil {
			return nil, fmt.Errorf("--profile: %w", err)
		}
	}
	r, err := setUp(ctx, o, d)
	if err != nil {
		return nil, err
	}
	defer r.close()

	warm := Bounds{Concurrency: o.Concurrency, Duration: o.Warmup, Requests: warmupPerWorker * o.Concurrency}
	run := Bounds{Concurrency: o.Concurrency, Duration: o.Duration, Requests: o.Requests}
	supply := o.Pool
	if o.Requests > 0 {
		supply = o.Requests
	}
	if o.Warmup > 0 {
		supply += warm.Requests
	}

	r.logf("baseline %s", baselineBareHTTP)
	bare, err := measureBareHTTP(ctx, o.Host, r.tr, warm, run)
	if err != nil {
		return nil, err
	}
	rep.Baselines = append(rep.Baselines, measurement(baselineBareHTTP, "GET / of a net/http handler writing 2 bytes, served by the bench process", bare))
	r.logf("baseline %s", baselineInsert)
	ins, err := measureInsert(ctx, r.ws.cfg.Server.Database, warm, run)
	if err != nil {
		return nil, err
	}
	rep.Baselines = append(rep.Baselines, measurement(baselineInsert, "one single-row INSERT per request on the same database, same driver and pool size", ins))

	e, err := r.signIn(ctx, supply)
	if err != nil {
		return nil, err
	}
	dbs, err := openDBBackends(r.ws)
	if err != nil {
		return nil, err
	}
	defer dbs.close()
	obs := observer{probe: newProbe(r.ws.cfg.Server.Internal.Addr, r.ws.apiKey), profileDir: o.ProfileDir, db: dbs}
	for _, name := range o.Scenarios {
		sc, _ := findScenario(name)
		r.logf("scenario %s", name)
		rep.Scenarios = append(rep.Scenarios, runScenario(ctx, sc, e, r.srv, obs, o.Warmup > 0, warm, run))
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	obs.probe.client.CloseIdleConnections()
	if err := r.stopServer(); err != nil {
		return nil, err
	}
	rep.Machine.LoadAfter = loadAverage()
	rep.setRatios()
	rep.countErrors()
	return rep, nil
}

// checkRun fills and checks the options and applies the loopback rule to the targets, before
// anything is created or sent.
func checkRun(ctx context.Context, opts Options) (Options, error) {
	if os.Getenv(nestedEnv) != "" {
		return opts, errors.New("refusing to run inside the server process of another bench run")
	}
	o, err := opts.withDefaults()
	if err != nil {
		return o, err
	}
	host, err := listenHost(ctx, o.Resolver, o.Host)
	if err != nil {
		return o, fmt.Errorf("--host: %w", err)
	}
	o.Host = host
	if o.Database == driverPostgres {
		if err := checkPostgresDSN(ctx, o.Resolver, o.DSN); err != nil {
			return o, err
		}
	}
	return o, nil
}

func serverKind(o Options) string {
	if o.InProcess {
		return "in-process"
	}
	return "child process"
}

// rig is what a run stands on: the workspace, the seeded school, the running server and the
// connection pool every client of the run shares.
type rig struct {
	o       Options
	ws      *workspace
	school  *fixture
	srv     target
	tr      *http.Transport
	logf    func(format string, args ...any)
	stopped bool
}

// setUp creates the workspace, seeds the school and starts the server. When it fails, whatever
// it made is removed again.
func setUp(ctx context.Context, o Options, d Deps) (_ *rig, err error) {
	r := &rig{o: o, logf: func(format string, args ...any) { fmt.Fprintf(o.Log, format+"\n", args...) }}
	defer func() {
		if err != nil {
			r.close()
		}
	}()
	if r.ws, err = newWorkspace(ctx, &r.o); err != nil {
		return nil, err
	}
	learners := min(o.Concurrency, maxLearners)
	r.logf("seeding %d members, %d courses of %d lectures (%s)", learners+1, o.Data.Courses, o.Data.Sections*o.Data.Lectures, o.Database)
	if r.school, err = seedSchool(ctx, d, r.ws.cfg, o.Data, learners); err != nil {
		return nil, err
	}
	r.ws.release()
	if o.InProcess {
		r.logf("starting the server in this process")
		r.srv, err = startInProcess(ctx, d.Serve, r.ws.cfg)
	} else {
		r.logf("starting %s serve", o.Executable)
		r.srv, err = startChild(ctx, o.Executable, r.ws.configFile, r.ws.logFile, r.ws.cfg.Server.Internal.Addr)
	}
	if err != nil {
		r.srv = nil
		return nil, err
	}
	r.tr = newTransport(o.Concurrency)
	return r, nil
}

// signIn signs every worker's browser in (newEnv); a failure comes with the server's log.
func (r *rig) signIn(ctx context.Context, supply int) (*env, error) {
	r.logf("signing %d browsers in", r.o.Concurrency)
	e, err := newEnv(ctx, r.school, r.tr, r.o.Concurrency, supply)
	if err != nil && !r.o.InProcess {
		err = fmt.Errorf("%w\n%s", err, tail(r.ws.logFile, 20))
	}
	return e, err
}

// stopServer stops the server, once. The run's idle connections are closed first: a
// connection the transport dialled but never sent a request on is a new connection to the
// server, and its graceful shutdown waits for those until its grace period runs out.
func (r *rig) stopServer() error {
	if r.stopped || r.srv == nil {
		return nil
	}
	r.stopped = true
	if r.tr != nil {
		r.tr.CloseIdleConnections()
	}
	return r.srv.stop()
}

// close stops the server if it still runs and removes the workspace unless Keep.
func (r *rig) close() {
	_ = r.stopServer()
	if r.tr != nil {
		r.tr.CloseIdleConnections()
	}
	if r.ws == nil {
		return
	}
	if err := r.ws.close(r.o.Keep); err != nil {
		r.logf("cleaning up: %v", err)
	}
	if r.o.Keep {
		r.logf("kept %s", r.ws.dir)
		if r.ws.schema != "" {
			r.logf("kept PostgreSQL schema %s", r.ws.schema)
		}
	}
}

// observer watches the server during a timed run: its statement count, and a CPU profile when
// profileDir is set.
type observer struct {
	probe      *probe
	profileDir string
	// db reads PostgreSQL's CPU time; nil on SQLite.
	db *dbBackends
}

// dbCPU reads the database backends' CPU times; nil without a database of its own (SQLite).
func (o observer) dbCPU(ctx context.Context) (map[int]time.Duration, error) {
	if o.db == nil {
		return nil, nil
	}
	return o.db.cpu(ctx)
}

// runScenario prepares, warms up and measures one scenario, with the server's CPU time, peak
// memory, statements and profile taken around the timed run only.
func runScenario(ctx context.Context, sc scenario, e *env, srv target, obs observer, warmUp bool, warm, run Bounds) Measurement {
	op, note, err := sc.prepare(ctx, e)
	if errors.Is(err, errUnavailable) {
		return Measurement{Name: sc.name, About: sc.about, Note: strings.TrimPrefix(err.Error(), errUnavailable.Error()+": ")}
	}
	if err != nil {
		return Measurement{Name: sc.name, About: sc.about, Available: true, Errors: 1, ErrorSamples: []string{"prepare: " + err.Error()}}
	}
	var warmRes Result
	if warmUp {
		warmRes = RunLoad(ctx, warm, op)
	}
	var profiled chan error
	if obs.profileDir != "" {
		profiled = make(chan error, 1)
		go func() {
			profiled <- obs.probe.cpuProfile(ctx, run.Duration, filepath.Join(obs.profileDir, sc.name+".pprof"))
		}()
	}
	srv.resetPeak()
	stmtsBefore, errBefore := obs.probe.statements(ctx)
	dbBefore, dbErrBefore := obs.dbCPU(ctx)
	before, ok1 := srv.usage()
	res := RunLoad(ctx, run, op)
	after, ok2 := srv.usage()
	dbAfter, dbErrAfter := obs.dbCPU(ctx)
	stmtsAfter, errAfter := obs.probe.statements(ctx)

	m := measurement(sc.name, sc.about, res)
	m.Note = note
	if errBefore == nil && errAfter == nil && res.Requests > 0 {
		perReq := round(float64(stmtsAfter-stmtsBefore)/float64(res.Requests), 2)
		m.StatementsPerRequest = &perReq
	}
	if dbBefore != nil && dbErrBefore == nil && dbErrAfter == nil {
		m.DBCPUPerRequestMS = cpuMSPerRequest(dbCPUSince(dbBefore, dbAfter), res.Requests)
	}
	if profiled != nil {
		if err := <-profiled; err != nil {
			m.Errors++
			m.ErrorSamples = append(m.ErrorSamples, "profile: "+err.Error())
		}
	}
	if warmRes.Errors > 0 {
		m.Errors += warmRes.Errors
		for _, s := range warmRes.ErrorSamples {
			m.ErrorSamples = append(m.ErrorSamples, "warm-up: "+s)
		}
	}
	m.setServerUsage(before, after, ok1 && ok2)
	if res.Requests == 0 && m.Errors == 0 {
		m.Errors = 1
		m.ErrorSamples = append(m.ErrorSamples, "no request completed")
	}
	m.ErrorSamples = slices.Compact(m.ErrorSamples)
	return m
}

// setServerUsage fills the server's CPU time, CPU per request and peak memory over a timed run
// from readings before and after it; ok is false when there are none (an in-process server).
func (m *Measurement) setServerUsage(before, after Usage, ok bool) {
	if !ok {
		return
	}
	cpu := round((after.CPU - before.CPU).Seconds(), 2)
	peak := after.PeakRSS
	m.ServerCPUSeconds, m.ServerPeakRSSBytes = &cpu, &peak
	m.ServerCPUPerRequestMS = cpuMSPerRequest(after.CPU-before.CPU, m.Requests)
}

// cpuMSPerRequest is CPU time spread over requests, in milliseconds rounded to 3 places; nil
// when there were none.
func cpuMSPerRequest(cpu time.Duration, requests int) *float64 {
	if requests <= 0 {
		return nil
	}
	perReq := round(cpu.Seconds()*1000/float64(requests), 3)
	return &perReq
}
