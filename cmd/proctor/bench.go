package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/proctorhq/proctor/bench"
	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/storage/gormstore"
)

// benchDeps are the parts of Proctor the load generator uses without importing them: the
// database it seeds, the server it measures when that runs in this process, and the client
// rules.
func benchDeps() bench.Deps {
	return bench.Deps{
		OpenStore: func(ctx context.Context, d config.Database) (bench.Store, error) {
			st, err := gormstore.Open(ctx, gormstore.Config{Driver: d.Driver, DSN: d.DSN, MaxOpenConns: d.MaxOpenConns})
			if err != nil {
				return nil, err
			}
			return st, nil
		},
		Serve: serveBench,
	}
}

// serveBench is `proctor serve` of cfg without the start-up retries, in this process, with
// its log discarded (the bench's output is the report), until ctx ends.
func serveBench(ctx context.Context, cfg *config.Config) error {
	reg, err := buildRegistry(cfg.Schools)
	if err != nil {
		return err
	}
	a, err := openStore(ctx, cfg, reg, slog.New(slog.DiscardHandler))
	if err != nil {
		return err
	}
	defer a.close()
	return a.serve(ctx, false, nil)
}

func newBenchCommand(g *globalFlags) *cobra.Command {
	var (
		o                    bench.Options
		scenarios            string
		jsonFile, chartFile  string
		database, dsn, tmpIn string
	)
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Load-test a Proctor server on loopback and report throughput and latency",
		Long: `Seed a school of its own in a temporary database, start "proctor serve" from this binary on
loopback, and drive each scenario at the given concurrency: a warm-up, then a timed run bounded
by --duration (at most 5m) and --requests. For each scenario it prints requests per second,
p50/p90/p99 latency, errors, the server's CPU seconds and peak RSS, and the rate as a fraction
of two baselines measured in the same run: a bare net/http handler and a single-row INSERT on
the same database. Any failed request makes the command exit with status 1.

Scenarios: ` + strings.Join(bench.ScenarioNames(), ", ") + `.

Load only ever goes to loopback (127.0.0.0/8, ::1): --host and the PostgreSQL --dsn must be
loopback addresses (or a name resolving only to them), and every connection is checked again
when it is dialled. There is no override.

--soak runs one soak instead of the scenarios: a mixed cycle per worker that mints what it
uses (the authorization-code flow of a signed-in member, userinfo, graphql-viewer and mcp-call
with the access token, a refresh, a use of the new token; a revocation every 5th cycle, a
sign-out and sign-in every 25th), first unpaced for --soak-peak to find its peak rate, then
paced at 70% of that rate for --soak-duration (default 5m, at most 30m). The school's tokens
live 1m and its codes 10s, so that the server's purge job, which runs every minute, has expired
rows to delete. Every --soak-window it records requests, errors, rate, p50/p99, the server's
resident memory and the row counts of the token, code, PKCE, OpenID Connect and login-session
tables, and at the end it judges them: no failed request, the rate held, and memory, p99 and
every table's size in the last third of the windows no higher than in the middle third beyond
set margins. It exits with status 1 when the verdict fails.

The command builds its own configuration; --config and PROCTOR_* settings are not read, and
the server it starts does not see them. docs/benchmarks.md describes the scenarios, the soak
and its criteria.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if g.configFile != "" {
				fmt.Fprintln(cmd.ErrOrStderr(), "note: bench builds its own configuration; --config / PROCTOR_CONFIG is not read")
			}
			// Zero means "the default" to the bench package; on the command line it is a mistake.
			switch {
			case o.Concurrency < 1:
				return fmt.Errorf("--concurrency must be at least 1")
			case o.Duration <= 0:
				return fmt.Errorf("--duration must be positive")
			case o.Pool < 1:
				return fmt.Errorf("--pool must be at least 1")
			case o.SoakDuration <= 0:
				return fmt.Errorf("--soak-duration must be positive")
			case o.SoakWindow <= 0:
				return fmt.Errorf("--soak-window must be positive")
			case o.SoakPeak <= 0:
				return fmt.Errorf("--soak-peak must be positive")
			}
			if err := checkSoakFlags(cmd, o.Soak); err != nil {
				return err
			}
			if scenarios != "" && scenarios != "all" {
				for _, s := range strings.Split(scenarios, ",") {
					if s = strings.TrimSpace(s); s != "" {
						o.Scenarios = append(o.Scenarios, s)
					}
				}
			}
			o.Database, o.DSN, o.TempDir = database, dsn, tmpIn
			if !o.InProcess {
				exe, err := os.Executable()
				if err != nil {
					return fmt.Errorf("find the proctor binary: %w", err)
				}
				o.Executable = exe
			}
			o.Version = version
			o.Command = commandLine(cmd)
			o.Log = cmd.ErrOrStderr()

			hint := ""
			if !o.Keep && !o.InProcess {
				hint = " (--keep keeps the server log)"
			}
			// A run of scenarios has no verdict to fail.
			var (
				rep     report
				failed  int
				verdict = true
			)
			if o.Soak {
				soakRep, err := bench.RunSoak(cmd.Context(), o, benchDeps())
				if err != nil {
					return err
				}
				rep, failed, verdict = soakRep, soakRep.Errors, soakRep.Verdict.Pass
			} else {
				runRep, err := bench.Run(cmd.Context(), o, benchDeps())
				if err != nil {
					return err
				}
				rep, failed = runRep, runRep.Errors
			}
			if err := writeReport(cmd, rep, jsonFile, chartFile); err != nil {
				return err
			}
			switch {
			case failed > 0:
				return fmt.Errorf("%d requests failed%s", failed, hint)
			case !verdict:
				return fmt.Errorf("the soak's verdict failed%s", hint)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&scenarios, "scenarios", "all", "comma-separated scenarios to run")
	f.IntVar(&o.Concurrency, "concurrency", bench.DefaultConcurrency, "concurrent workers (1 to 256)")
	f.DurationVar(&o.Duration, "duration", bench.DefaultDuration, "timed run of each scenario (at most 5m)")
	f.IntVar(&o.Requests, "requests", 0, "cap on each scenario's timed requests (0: none)")
	f.DurationVar(&o.Warmup, "warmup", bench.DefaultWarmup, "untimed warm-up of each scenario, or of a soak's cycle (0: none)")
	f.IntVar(&o.Pool, "pool", bench.DefaultPool, "codes and grants minted for exchange and revoke when --requests is not set")
	f.StringVar(&database, "database", "sqlite", "sqlite or postgres")
	f.StringVar(&dsn, "dsn", "", "PostgreSQL DSN on loopback (postgres only; a schema is created and dropped)")
	f.StringVar(&o.Host, "host", "127.0.0.1", "loopback address the server listens on")
	f.StringVar(&jsonFile, "json", "", "also write the report (the soak's windows and verdict) as JSON to this file")
	f.StringVar(&chartFile, "chart", "", "also draw requests per second and p99 per scenario (a soak's rate, p99, memory and rows over time) as SVG to this file")
	f.BoolVar(&o.Keep, "keep", false, "keep the temporary directory (configuration, server log, SQLite database) and PostgreSQL schema")
	f.StringVar(&tmpIn, "tmp", "", "where to create the temporary directory (default: the system's)")
	f.StringVar(&o.ProfileDir, "profile", "", "write a CPU profile of the server per scenario to DIR/<scenario>.pprof")
	f.BoolVar(&o.InProcess, "in-process", false, "serve from this process instead of a child (no server CPU and memory figures)")
	f.BoolVar(&o.Soak, "soak", false, "run one soak of a mixed cycle at 70% of its peak rate instead of the scenarios")
	f.DurationVar(&o.SoakDuration, "soak-duration", bench.DefaultSoakDuration, "the soak's paced run (at most 30m)")
	f.DurationVar(&o.SoakWindow, "soak-window", bench.DefaultSoakWindow, "the soak's reporting interval (100ms to 1m; at least 6 in the soak)")
	f.DurationVar(&o.SoakPeak, "soak-peak", bench.DefaultSoakPeak, "the unpaced run that measures the soak cycle's peak rate (at most 1m)")
	return cmd
}

// Flags that belong to one kind of run only.
var (
	scenarioOnlyFlags = []string{"scenarios", "duration", "requests", "pool", "profile"}
	soakOnlyFlags     = []string{"soak-duration", "soak-window", "soak-peak"}
)

// checkSoakFlags refuses a flag given for the other kind of run, rather than ignoring it.
func checkSoakFlags(cmd *cobra.Command, soak bool) error {
	if soak {
		for _, name := range scenarioOnlyFlags {
			if cmd.Flags().Changed(name) {
				return fmt.Errorf("--%s does not apply to --soak", name)
			}
		}
		return nil
	}
	for _, name := range soakOnlyFlags {
		if cmd.Flags().Changed(name) {
			return fmt.Errorf("--%s needs --soak", name)
		}
	}
	return nil
}

// report is what a run and a soak both print and write.
type report interface {
	WriteTable(io.Writer) error
	WriteJSON(io.Writer) error
	WriteSVG(io.Writer) error
}

// writeReport prints the report's table and writes its JSON and chart where asked.
func writeReport(cmd *cobra.Command, rep report, jsonFile, chartFile string) error {
	if err := rep.WriteTable(cmd.OutOrStdout()); err != nil {
		return err
	}
	if jsonFile != "" {
		if err := writeFile(jsonFile, rep.WriteJSON); err != nil {
			return err
		}
	}
	if chartFile != "" {
		return writeFile(chartFile, rep.WriteSVG)
	}
	return nil
}

// writeFile creates path and writes to it with write.
func writeFile(path string, write func(w io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// commandLine is the command as run, for the report: the flags that were set, with the DSN's
// value left out (it may hold a password).
func commandLine(cmd *cobra.Command) string {
	parts := []string{"proctor bench"}
	cmd.Flags().Visit(func(f *pflag.Flag) {
		v := f.Value.String()
		if f.Name == "dsn" {
			v = "[redacted]"
		}
		parts = append(parts, "--"+f.Name+"="+v)
	})
	return strings.Join(parts, " ")
}
