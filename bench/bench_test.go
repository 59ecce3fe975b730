package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/server"
	"github.com/proctorhq/proctor/storage/gormstore"
	"github.com/proctorhq/proctor/tenant"
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
// configuration, refuse an unmigrated database, sync the schools and serve until SIGTERM.
func serveForTest(file string) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	cfg, err := config.Load(file)
	if err != nil {
		return err
	}
	st, err := openStore(ctx, cfg.Server.Database)
	if err != nil {
		return err
	}
	defer st.Close()
	if pending, err := st.PendingMigrations(ctx); err != nil || len(pending) > 0 {
		return fmt.Errorf("pending migrations %v (%v)", pending, err)
	}
	var list []*tenant.Tenant
	for _, c := range cfg.Tenants {
		t, err := tenant.New(c)
		if err != nil {
			return err
		}
		if err := st.SyncSchool(ctx, t.SchoolID, t.Subdomain, t.Name); err != nil {
			return err
		}
		list = append(list, t)
	}
	reg, err := tenant.NewRegistry(list)
	if err != nil {
		return err
	}
	srv, err := server.New(server.Deps{Config: cfg.Server, Tenants: reg, Store: st})
	if err != nil {
		return err
	}
	return srv.Run(ctx)
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

// TestEveryScenario runs every scenario for 20 requests at concurrency 2 against the server
// built in this process, on loopback, and wants no error at all.
func TestEveryScenario(t *testing.T) {
	for _, backend := range backends() {
		t.Run(backend, func(t *testing.T) {
			tmp := t.TempDir()
			o := Options{
				InProcess: true, Concurrency: 2, Requests: 20, Duration: 30 * time.Second, Warmup: 200 * time.Millisecond,
				Database: backend, TempDir: tmp, Data: testData, Version: "test",
			}
			if backend == gormstore.DriverPostgres {
				o.DSN = os.Getenv("PROCTOR_TEST_POSTGRES_DSN")
			}
			rep, err := Run(t.Context(), o)
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
			if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
				t.Errorf("%d entries left in the temporary directory", len(entries))
			}
		})
	}
}

// TestChildServer runs two scenarios against a server in a child process, which is what
// reports the server's CPU time and peak memory.
func TestChildServer(t *testing.T) {
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
	// A profile lasts the whole --duration, so the runs are bounded by a short one.
	profiles := t.TempDir()
	rep, err := Run(t.Context(), Options{
		Executable: exe, Scenarios: []string{"authcode", "graphql-viewer"},
		Concurrency: 2, Duration: time.Second, Warmup: 0, TempDir: t.TempDir(), Data: testData, ProfileDir: profiles,
	})
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
	})
	if err == nil || !strings.Contains(err.Error(), "exited before it was ready") {
		t.Fatalf("err = %v", err)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		t.Fatal("waited for the timeout")
	}
}
