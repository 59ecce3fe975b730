package bench

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/server"
	"github.com/proctorhq/proctor/storage/gormstore"
)

// childServeEnv makes the test binary act as `proctor serve` when the child-process test starts
// it: the server built from the current code, in a process of its own, without compiling the
// command in the test. (Not PROCTOR_*: the child's environment is cleared of those.)
const childServeEnv = "BENCH_TEST_CHILD_SERVE"

func TestMain(m *testing.M) {
	if os.Getenv(childServeEnv) == "1" && len(os.Args) == 4 && os.Args[1] == "serve" && os.Args[2] == "--config" {
		if err := serveForTest(os.Args[3]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// serveForTest does what `proctor serve --config FILE` does: load and validate the
// configuration, and serve it until SIGTERM.
func serveForTest(file string) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	cfg, err := config.Load(file)
	if err != nil {
		return err
	}
	return serveConfig(ctx, cfg)
}

// serveConfig is the composition root's part for the tests: refuse an unmigrated database, sync
// the schools and serve cfg until ctx ends.
func serveConfig(ctx context.Context, cfg *config.Config) error {
	st, err := openTestStore(ctx, cfg.Server.Database)
	if err != nil {
		return err
	}
	defer st.Close()
	if pending, err := st.PendingMigrations(ctx); err != nil || len(pending) > 0 {
		return fmt.Errorf("pending migrations %v (%v)", pending, err)
	}
	var list []*school.School
	for _, c := range cfg.Schools {
		t, err := school.New(c)
		if err != nil {
			return err
		}
		if err := st.SyncSchool(ctx, t.SchoolID, t.Subdomain, t.Name); err != nil {
			return err
		}
		list = append(list, t)
	}
	reg, err := school.NewRegistry(list)
	if err != nil {
		return err
	}
	srv, err := server.New(server.Deps{Config: cfg.Server, Schools: reg, Store: st})
	if err != nil {
		return err
	}
	return srv.Run(ctx)
}

func openTestStore(ctx context.Context, d config.Database) (*gormstore.Store, error) {
	return gormstore.Open(ctx, gormstore.Config{Driver: d.Driver, DSN: d.DSN, MaxOpenConns: d.MaxOpenConns})
}

// testDeps are what cmd/proctor hands a run, built from the same packages.
var testDeps = Deps{
	OpenStore: func(ctx context.Context, d config.Database) (Store, error) {
		st, err := openTestStore(ctx, d)
		if err != nil {
			return nil, err
		}
		return st, nil
	},
	Serve: serveConfig,
}

// testData is a smaller school than the default, so that seeding takes a moment; the
// curriculum scenario checks it reads all of it back.
var testData = DataSize{Courses: 4, Sections: 3, Lectures: 5}

// backends are the databases the integration test runs on: SQLite, and PostgreSQL when CI's
// server is configured.
func backends() []string {
	if os.Getenv("PROCTOR_TEST_POSTGRES_DSN") != "" {
		return []string{gormstore.DriverSQLite, gormstore.DriverPostgres}
	}
	return []string{gormstore.DriverSQLite}
}

// inProcessOptions are the options of a small run against a server in this process on backend,
// with two workers and a short warm-up.
func inProcessOptions(t *testing.T, backend string) Options {
	o := Options{
		InProcess: true, Concurrency: 2, Warmup: 200 * time.Millisecond,
		Database: backend, TempDir: t.TempDir(), Data: testData, Version: "test",
	}
	if backend == gormstore.DriverPostgres {
		o.DSN = os.Getenv("PROCTOR_TEST_POSTGRES_DSN")
	}
	return o
}

// TestEveryScenario runs every scenario for 20 requests at concurrency 2 against the server
// built in this process, on loopback, and wants no error at all.
func TestEveryScenario(t *testing.T) {
	for _, backend := range backends() {
		t.Run(backend, func(t *testing.T) {
			o := inProcessOptions(t, backend)
			// The run ends at 20 requests; the duration is only the safety bound, the longest
			// allowed, so that a busy machine still gets to 20.
			o.Requests, o.Duration = 20, MaxDuration
			rep, err := Run(t.Context(), o, testDeps)
			if err != nil {
				t.Fatal(err)
			}
			var table strings.Builder
			_ = rep.WriteTable(&table)
			t.Log("\n" + table.String())
			if rep.Errors != 0 {
				t.Fatalf("%d errors", rep.Errors)
			}
			if len(rep.Scenarios) != len(scenarios) {
				t.Fatalf("%d scenarios reported", len(rep.Scenarios))
			}
			for _, m := range rep.Scenarios {
				if !m.Available {
					// Only the MCP endpoint may be missing from a build (it is optional here).
					if m.Name != "mcp-call" || !strings.Contains(m.Note, "404") {
						t.Errorf("%s not available: %s", m.Name, m.Note)
					}
					continue
				}
				if m.Requests != 20 || m.RPS <= 0 || m.LatencyMS.P99 <= 0 || m.LatencyMS.P50 > m.LatencyMS.P99 {
					t.Errorf("%s: %+v", m.Name, m)
				}
				if m.ServerCPUSeconds != nil {
					t.Errorf("%s: server CPU reported for an in-process server", m.Name)
				}
				if m.VsBareHTTP == nil || m.VsDBInsert == nil {
					t.Errorf("%s: no ratios", m.Name)
				}
				// PostgreSQL's CPU is read from its backends; SQLite has none of its own.
				if (m.DBCPUPerRequestMS != nil) != (backend == gormstore.DriverPostgres) {
					t.Errorf("%s: database CPU per request %v on %s", m.Name, m.DBCPUPerRequestMS, backend)
				}
				// Every scenario reads the database at least once a request (the token, the
				// session or the code).
				if m.StatementsPerRequest == nil || *m.StatementsPerRequest < 1 {
					t.Errorf("%s: statements per request %v", m.Name, m.StatementsPerRequest)
				}
			}
			for _, b := range rep.Baselines {
				if b.Requests != 20 || b.Errors != 0 {
					t.Errorf("baseline %s: %+v", b.Name, b)
				}
			}
			// The run cleans up after itself.
			if entries, _ := os.ReadDir(o.TempDir); len(entries) != 0 {
				t.Errorf("%d entries left in the temporary directory", len(entries))
			}
		})
	}
}

// childExecutable returns the executable that runs as the server process (this test binary, told by
// childServeEnv to serve), or skips the test where a child server cannot be measured.
func childExecutable(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a server process")
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc here")
	}
	t.Setenv(childServeEnv, "1")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// TestChildServer runs two scenarios against a server in a child process, which is what
// reports the server's CPU time and peak memory.
func TestChildServer(t *testing.T) {
	exe := childExecutable(t)
	// A profile lasts the whole --duration, so the runs are bounded by a short one.
	profiles := t.TempDir()
	rep, err := Run(t.Context(), Options{
		Executable: exe, Scenarios: []string{"authcode", "graphql-viewer"},
		Concurrency: 2, Duration: time.Second, Warmup: 0, TempDir: t.TempDir(), Data: testData, ProfileDir: profiles,
	}, testDeps)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Errors != 0 || rep.Server != "child process" {
		t.Fatalf("errors %d, server %q", rep.Errors, rep.Server)
	}
	for _, m := range rep.Scenarios {
		if m.Requests < 1 || m.ServerCPUSeconds == nil || m.ServerPeakRSSBytes == nil || *m.ServerPeakRSSBytes < 1<<20 {
			t.Errorf("%s: requests %d, cpu %v, rss %v", m.Name, m.Requests, m.ServerCPUSeconds, m.ServerPeakRSSBytes)
		}
		// A CPU profile is gzipped protobuf.
		b, err := os.ReadFile(filepath.Join(profiles, m.Name+".pprof"))
		if err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
			t.Errorf("%s: profile %d bytes, %v", m.Name, len(b), err)
		}
	}
}

// TestChildServerThatFailsToStart: a server that exits at start-up is reported with its log,
// not waited for.
func TestChildServerThatFailsToStart(t *testing.T) {
	if _, err := os.Stat("/bin/false"); err != nil {
		t.Skip("no /bin/false here")
	}
	_, err := Run(t.Context(), Options{
		Executable: "/bin/false", Scenarios: []string{"userinfo"}, Concurrency: 1, Requests: 1,
		TempDir: t.TempDir(), Data: DataSize{Courses: 1, Sections: 1, Lectures: 1},
	}, testDeps)
	if err == nil || !strings.Contains(err.Error(), "exited before it was ready") {
		t.Fatalf("err = %v", err)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		t.Fatal("waited for the timeout")
	}
}

// TestSoakInProcess runs a soak of a few seconds in half-second windows against the server
// built in this process and checks what the windows hold. A run this short is not judged on its
// tables (the purge job has not run) nor on memory (no child process); its other checks are
// timing and are not asserted here. Nothing asserted depends on how fast the machine is: the
// rates, the number of windows and how many requests fit in them are what the machine made of
// the run, so the test checks only what must hold whatever they are (counts that add up, the
// schedule's bound, a verdict that agrees with its windows).
func TestSoakInProcess(t *testing.T) {
	for _, backend := range backends() {
		t.Run(backend, func(t *testing.T) {
			o := inProcessOptions(t, backend)
			o.Soak, o.SoakPeak, o.SoakDuration, o.SoakWindow = true, time.Second, 3*time.Second, 500*time.Millisecond
			rep, err := RunSoak(t.Context(), o, testDeps)
			if err != nil {
				t.Fatal(err)
			}
			var table strings.Builder
			if err := rep.WriteTable(&table); err != nil {
				t.Fatal(err)
			}
			t.Log("\n" + table.String())
			if rep.Errors != 0 {
				t.Fatalf("%d errors: %q", rep.Errors, rep.ErrorSamples)
			}
			if rep.Peak.Requests == 0 || rep.Peak.RPS <= 0 {
				t.Fatalf("peak = %+v", rep.Peak)
			}
			// Paced at 70% of the peak (both figures rounded to 0.1).
			if want := rep.Peak.RPS * SoakLoad; math.Abs(rep.TargetRPS-want) > 0.2 {
				t.Errorf("target %.1f, want %.1f", rep.TargetRPS, want)
			}
			// The schedule's room is decided by the exact target before the run; the report's
			// target is rounded to 0.1, hence the slack of 0.05 a second over the 3 s.
			if want := rep.TargetRPS * 3; math.Abs(float64(rep.ScheduledRequests)-want) > 0.05*3+1 {
				t.Errorf("the schedule has room for %d requests; %.1f a second for 3s makes %.2f", rep.ScheduledRequests, rep.TargetRPS, want)
			}
			if rep.Soak.Requests > rep.ScheduledRequests {
				t.Errorf("%d soak requests, the schedule has room for %d", rep.Soak.Requests, rep.ScheduledRequests)
			}
			full, total := 0, 0
			for _, w := range rep.Windows {
				total += w.Requests
				if w.Errors != 0 || w.RowsError != "" {
					t.Errorf("window %+v", w)
				}
				if w.ServerRSSBytes != nil {
					t.Errorf("server memory reported for an in-process server")
				}
				if w.Seconds >= 0.25 {
					full++
				}
				// A busy machine may finish no request in a window; one that finished some
				// has figures for them.
				if w.Requests > 0 && (w.RPS <= 0 || w.P50MS <= 0 || w.P99MS < w.P50MS) {
					t.Errorf("window %+v", w)
				}
				// The warm-up and peak runs made grants before the soak's first window, and
				// nothing in a run this short deletes a pair. The login sessions are counted
				// but not bounded: a worker's sign-out-and-in step deletes its session before
				// it makes the next, so a count can fall between the two.
				if _, counted := w.Rows["login_sessions"]; !counted || w.Rows["oauth_token_pairs"] < 1 {
					t.Errorf("rows %v", w.Rows)
				}
			}
			if len(rep.Windows) == 0 || total != rep.Soak.Requests {
				t.Errorf("%d windows with %d requests; the soak made %d", len(rep.Windows), total, rep.Soak.Requests)
			}
			for _, step := range []string{"authcode", "userinfo", "graphql-viewer", "refresh"} {
				if rep.Mix[step] == 0 {
					t.Errorf("no %s step in %v", step, rep.Mix)
				}
			}
			checks := map[string]string{}
			for _, c := range rep.Verdict.Checks {
				checks[c.Name] = c.Result
			}
			// How many windows a run of 3 s in windows of 0.5 s gets is the machine's doing (a
			// slow row count delays the next window); the verdict must agree with the count.
			wantWindows := checkPass
			if full < minSoakWindows {
				wantWindows = checkFail
			}
			if checks["errors"] != checkPass || checks["windows"] != wantWindows || checks["rss"] != checkNotJudged ||
				checks["rows oauth_token_pairs"] != checkNotJudged {
				t.Errorf("checks %v (%d full windows)", checks, full)
			}
			var js strings.Builder
			if err := rep.WriteJSON(&js); err != nil || !strings.Contains(js.String(), `"windows"`) || !strings.Contains(js.String(), `"verdict"`) {
				t.Errorf("json: %v", err)
			}
			if entries, _ := os.ReadDir(o.TempDir); len(entries) != 0 {
				t.Errorf("%d entries left in the temporary directory", len(entries))
			}
		})
	}
}

// TestSoakChildServer: against a child process the windows carry the server's memory and CPU.
func TestSoakChildServer(t *testing.T) {
	exe := childExecutable(t)
	rep, err := RunSoak(t.Context(), Options{
		Executable: exe, Concurrency: 2, SoakPeak: time.Second, SoakDuration: 1500 * time.Millisecond,
		SoakWindow: 250 * time.Millisecond, TempDir: t.TempDir(), Data: testData,
	}, testDeps)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Errors != 0 {
		t.Fatalf("%d errors: %q", rep.Errors, rep.ErrorSamples)
	}
	for _, w := range rep.Windows {
		if w.ServerRSSBytes == nil || *w.ServerRSSBytes < 1<<20 {
			t.Errorf("window at %.1fs: RSS %v", w.EndSeconds, w.ServerRSSBytes)
		}
	}
	if rep.Soak.ServerPeakRSSBytes == nil || rep.Soak.ServerCPUPerRequestMS == nil {
		t.Errorf("soak without server figures: %+v", rep.Soak)
	}
}

func TestSoakOptionsAreChecked(t *testing.T) {
	base := Options{InProcess: true, Soak: true}
	for name, o := range map[string]func(o Options) Options{
		"over 30m":         func(o Options) Options { o.SoakDuration = 31 * time.Minute; return o },
		"under 6 windows":  func(o Options) Options { o.SoakDuration, o.SoakWindow = 50*time.Second, 10*time.Second; return o },
		"tiny window":      func(o Options) Options { o.SoakWindow = time.Millisecond; return o },
		"long peak":        func(o Options) Options { o.SoakPeak = 2 * time.Minute; return o },
		"scenarios":        func(o Options) Options { o.Scenarios = []string{"refresh"}; return o },
		"a request cap":    func(o Options) Options { o.Requests = 10; return o },
		"profiles":         func(o Options) Options { o.ProfileDir = "x"; return o },
		"negative soaking": func(o Options) Options { o.SoakDuration = -time.Second; return o },
	} {
		if _, err := o(base).withDefaults(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	o, err := base.withDefaults()
	if err != nil || o.SoakDuration != DefaultSoakDuration || o.SoakWindow != DefaultSoakWindow || o.SoakPeak != DefaultSoakPeak || len(o.Scenarios) != 0 {
		t.Fatalf("defaults: %+v, %v", o, err)
	}
	if _, err := Run(t.Context(), base, testDeps); err == nil {
		t.Error("Run accepted a soak")
	}
}

// soakWindows makes n full 10s windows of a steady soak at 100 req/s: p99 100ms, 60 MiB, and
// token pairs in the saw-tooth of a purge every minute (rows of 120s just before a purge, 60s
// after it).
func soakWindows(n int) []SoakWindow {
	out := make([]SoakWindow, n)
	for i := range out {
		end := float64(10 * (i + 1))
		rss := int64(60 << 20)
		since := math.Mod(end, 60)
		pairs := int64(100 * min(end, 60+since))
		out[i] = SoakWindow{
			EndSeconds: end, Seconds: 10, Requests: 1000, RPS: 100, P50MS: 20, P99MS: 100, ServerRSSBytes: &rss,
			Rows: map[string]int64{
				"oauth_token_pairs": pairs, "oauth_authorization_codes": 900, "oauth_pkce_sessions": 3,
				"oauth_oidc_sessions": 5, "login_sessions": 17,
			},
		}
	}
	return out
}

func TestJudgeSoak(t *testing.T) {
	const window = 10 * time.Second
	crit := DefaultSoakCriteria(window)
	results := func(v Verdict) map[string]string {
		m := map[string]string{}
		for _, c := range v.Checks {
			m[c.Name] = c.Result
		}
		return m
	}
	for _, tc := range []struct {
		name   string
		change func(ws []SoakWindow) []SoakWindow
		errs   int
		pass   bool
		// want holds the results expected of some checks.
		want map[string]string
	}{
		{name: "flat passes", change: func(ws []SoakWindow) []SoakWindow { return ws }, pass: true,
			want: map[string]string{"errors": checkPass, "rate": checkPass, "rss": checkPass, "p99": checkPass, "rows oauth_token_pairs": checkPass, "rows login_sessions": checkPass}},
		{name: "errors fail", change: func(ws []SoakWindow) []SoakWindow { return ws }, errs: 3,
			want: map[string]string{"errors": checkFail, "rss": checkPass}},
		{name: "growing memory fails", change: func(ws []SoakWindow) []SoakWindow {
			for i := range ws {
				rss := int64(60<<20) + int64(i)*(1<<20) // 1 MiB more every window
				ws[i].ServerRSSBytes = &rss
			}
			return ws
		}, want: map[string]string{"rss": checkFail, "p99": checkPass}},
		{name: "a memory spike in the last third passes", change: func(ws []SoakWindow) []SoakWindow {
			rss := int64(200 << 20)
			ws[len(ws)-2].ServerRSSBytes = &rss
			return ws
		}, pass: true},
		{name: "a growing table fails", change: func(ws []SoakWindow) []SoakWindow {
			for i := range ws {
				ws[i].Rows["oauth_token_pairs"] = int64(1000 * (i + 1)) // never purged
			}
			return ws
		}, want: map[string]string{"rows oauth_token_pairs": checkFail, "rows oauth_authorization_codes": checkPass}},
		{name: "a small table may wobble", change: func(ws []SoakWindow) []SoakWindow {
			ws[len(ws)-1].Rows["login_sessions"] = 40
			return ws
		}, pass: true},
		{name: "a rising p99 fails", change: func(ws []SoakWindow) []SoakWindow {
			for i := 2 * len(ws) / 3; i < len(ws); i++ {
				ws[i].P99MS = 180
			}
			return ws
		}, want: map[string]string{"p99": checkFail}},
		{name: "a falling rate fails", change: func(ws []SoakWindow) []SoakWindow {
			for i := 2 * len(ws) / 3; i < len(ws); i++ {
				ws[i].Requests, ws[i].RPS = 700, 70
			}
			return ws
		}, want: map[string]string{"rate": checkFail}},
		{name: "a short last window is left out", change: func(ws []SoakWindow) []SoakWindow {
			rss := int64(500 << 20)
			return append(ws, SoakWindow{EndSeconds: 300.2, Seconds: 0.2, Requests: 3, P99MS: 900, ServerRSSBytes: &rss,
				Rows: map[string]int64{"oauth_token_pairs": 99999}})
		}, pass: true},
		{name: "tables are not judged before the purge can have run", change: func(ws []SoakWindow) []SoakWindow {
			return ws[:9] // 90s: the middle third ends at 60s
		}, pass: true, want: map[string]string{"rows oauth_token_pairs": checkNotJudged, "rss": checkPass}},
		{name: "no memory figures are not judged", change: func(ws []SoakWindow) []SoakWindow {
			for i := range ws {
				ws[i].ServerRSSBytes = nil
			}
			return ws
		}, pass: true, want: map[string]string{"rss": checkNotJudged}},
		{name: "too few windows fail", change: func(ws []SoakWindow) []SoakWindow { return ws[:5] },
			want: map[string]string{"windows": checkFail, "rss": checkNotJudged}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := judgeSoak(tc.change(soakWindows(30)), window, 100, tc.errs, crit)
			got := results(v)
			if v.Pass != tc.pass {
				t.Errorf("pass = %v, want %v: %+v", v.Pass, tc.pass, v.Checks)
			}
			for name, want := range tc.want {
				if got[name] != want {
					t.Errorf("%s: %s, want %s (%+v)", name, got[name], want, v.Checks)
				}
			}
		})
	}
}

// TestSoakReportOutputs renders a crafted report as a table and a chart.
func TestSoakReportOutputs(t *testing.T) {
	ws := soakWindows(30)
	rep := &SoakReport{
		RunInfo: RunInfo{Version: "test", Database: "sqlite", Server: "child process", Concurrency: 4}, DurationSeconds: 300, WindowSeconds: 10,
		PeakSeconds: 15, Load: SoakLoad, TargetRPS: 100, Windows: ws, Mix: map[string]int{"authcode": 5, "revoke": 1},
		Lifetimes: SoakLifetimes{AccessToken: "1m0s", RefreshToken: "1m0s", AuthorizationCode: "10s", PurgeInterval: "1m0s"},
	}
	rep.Verdict = judgeSoak(ws, 10*time.Second, 100, 0, DefaultSoakCriteria(10*time.Second))
	var table strings.Builder
	if err := rep.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"5m0s soak in 10s windows", "verdict: PASS", "pairs = oauth_token_pairs", "authcode 5, revoke 1", "11000"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("no %q in:\n%s", want, table.String())
		}
	}
	var svg bytes.Buffer
	if err := rep.WriteSVG(&svg); err != nil {
		t.Fatal(err)
	}
	lines := 0
	for _, tok := range xmlTokens(t, &svg) {
		if el, ok := tok.(xml.StartElement); ok && el.Name.Local == "polyline" {
			lines++
		}
	}
	// Rate, p99, memory, and one line per table.
	if want := 3 + len(soakTables); lines != want {
		t.Errorf("%d polylines, want %d", lines, want)
	}
}
