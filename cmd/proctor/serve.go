package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"reflect"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/server"
	"github.com/proctorhq/proctor/telemetry"
)

func newServeCommand(g *globalFlags) *cobra.Command {
	var (
		migrate bool
		only    string
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the public and internal listeners",
		Long: `Run the public listener (every school, resolved by Host) and the internal listener
(/healthz, /readyz, /metrics). SIGTERM or SIGINT drains in-flight requests for up to
http.shutdown_grace, then exits.

When the database cannot be reached at start-up, serve keeps trying with backoff for
database.startup_timeout (default 60s), logging each attempt, then exits non-zero. Meanwhile
the internal listener answers /healthz 200 and /readyz 503, and nothing listens on the public
address yet.

SIGHUP re-reads and validates the server file and every school file. When all are valid, the
set of schools served is replaced at once (new schools answer, removed ones no longer do, changed
ones take their new settings); when any is not, the running set is kept and every problem is
logged. Server settings (listeners, database, secret ...) take effect at the next start.

The database schema must be current: run "proctor migrate" first, or pass --migrate.

With --only member-api the process serves the GraphQL Member API alone, verifying tokens
through the authorization server's internal introspection endpoint (member_api.introspection_url
and member_api.api_key) and reading member data from the same database.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch only {
			case "", server.OnlyMemberAPI:
			default:
				return fmt.Errorf("--only accepts %q", server.OnlyMemberAPI)
			}
			cfg, reg, err := loadSchools(g)
			if err != nil {
				return err
			}
			// From here on a hangup re-reads the school files rather than ending the process; one
			// that comes before the server is up waits for it.
			hangups := make(chan os.Signal, 1)
			signal.Notify(hangups, syscall.SIGHUP)
			defer signal.Stop(hangups)
			log := newLogger(cfg.Server.Log, cmd.ErrOrStderr())
			ctx := cmd.Context()
			// Without telemetry.otlp_endpoint this starts nothing and traces is nil.
			traces, err := telemetry.Start(cfg.Server.Telemetry.OTLPEndpoint, server.Version())
			if err != nil {
				return err
			}
			defer shutDownTraces(traces, log)
			if traces != nil {
				// Export failures go to the server's log, not to the SDK's own stderr logger.
				otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { log.Warn("trace export failed", "err", err) }))
			}
			// The internal listener answers from the start, so that an orchestrator sees a live
			// process that is not ready rather than a dead one while the database is awaited.
			in, err := net.Listen("tcp", cfg.Server.Internal.Addr)
			if err != nil {
				return fmt.Errorf("internal listener: %w", err)
			}
			starting, err := server.ServeStarting(in, log)
			if err != nil {
				in.Close()
				return err
			}
			var a *app
			err = retryStartup(ctx, log, startupClock(cfg.Server.Database.StartupTimeout), func(ctx context.Context) error {
				var err error
				a, err = openStore(ctx, cfg, reg, log)
				return err
			})
			if err != nil {
				_ = starting.Close()
				if ctx.Err() != nil {
					// SIGTERM or SIGINT while waiting: an ordinary stop.
					log.Info("stopped while waiting for the database")
					return nil
				}
				return err
			}
			defer a.close()
			a.only = only
			a.reload = &reloader{hangups: hangups, configFile: g.configFile}
			// Before the store is shared: nothing but the start-up ping has used it yet.
			a.store.TraceStatements(traces.TracerProvider())
			return a.serveTraced(ctx, migrate, starting, traces.TracerProvider())
		},
	}
	cmd.Flags().BoolVar(&migrate, "migrate", false, "apply pending migrations before serving")
	cmd.Flags().StringVar(&only, "only", "", "serve one part alone: member-api")
	return cmd
}

// serve migrates if asked, checks the schema, syncs the schools, takes the internal listener
// over from starting (or, when nil, opens it) and serves until ctx ends. The public listener opens only now: until the
// server can answer, a client or load balancer finds nothing there (docs/deployment.md).
func (a *app) serve(ctx context.Context, migrate bool, starting *server.Starting) error {
	return a.serveTraced(ctx, migrate, starting, nil)
}

// traceShutdownTimeout bounds the export of the last spans when the server stops.
const traceShutdownTimeout = 5 * time.Second

// shutDownTraces exports the spans not yet sent and stops the exporter.
func shutDownTraces(p *telemetry.Provider, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), traceShutdownTimeout)
	defer cancel()
	if err := p.Shutdown(ctx); err != nil {
		log.Warn("exporting the last traces failed", "err", err)
	}
}

// serveTraced is serve with the tracer provider of telemetry.otlp_endpoint (nil: no tracing).
func (a *app) serveTraced(ctx context.Context, migrate bool, starting *server.Starting, tracing trace.TracerProvider) (err error) {
	defer func() {
		if err != nil && starting != nil {
			_ = starting.Close()
		}
	}()
	if migrate {
		applied, err := a.store.Migrate(ctx)
		if err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		if len(applied) > 0 {
			a.log.Info("applied migrations", "migrations", strings.Join(applied, ","))
		}
	}
	if err := a.requireCurrentSchema(ctx); err != nil {
		return err
	}
	if err := a.syncSchools(ctx); err != nil {
		return err
	}
	srv, err := server.New(server.Deps{Config: a.cfg.Server, Schools: a.schools, Store: a.store, Logger: a.log, Only: a.only, Tracing: tracing})
	if err != nil {
		return err
	}
	if a.reload != nil {
		go a.reloadOnHangup(ctx, srv)
	}
	pub, err := net.Listen("tcp", a.cfg.Server.Public.Addr)
	if err != nil {
		return fmt.Errorf("public listener: %w", err)
	}
	var in net.Listener
	if starting != nil {
		in, err = starting.Handover(ctx)
		starting = nil
	} else {
		in, err = net.Listen("tcp", a.cfg.Server.Internal.Addr)
		if err != nil {
			err = fmt.Errorf("internal listener: %w", err)
		}
	}
	if err != nil {
		pub.Close()
		return err
	}
	return srv.Serve(ctx, pub, in)
}

// reloader is what serve needs to re-read its configuration on SIGHUP.
type reloader struct {
	hangups    <-chan os.Signal
	configFile string
}

// reloadOnHangup reloads the schools at every hangup until ctx ends.
func (a *app) reloadOnHangup(ctx context.Context, srv *server.Server) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-a.reload.hangups:
			a.reloadSchools(ctx, srv)
		}
	}
}

// reloadSchools re-reads and validates the whole configuration, as at start-up, and swaps the
// server's schools for the new set when all of it is valid. Otherwise the running set is kept
// and every problem is logged, one line each, as `proctor schools validate` would list them.
func (a *app) reloadSchools(ctx context.Context, srv *server.Server) {
	a.log.Info("SIGHUP: reloading the school files")
	cfg, err := config.Load(a.reload.configFile)
	var next *school.Registry
	if err == nil {
		next, err = buildRegistry(cfg.Schools)
	}
	if err == nil {
		err = srv.ReplaceSchools(ctx, next)
	}
	if err != nil {
		var problems config.Errors
		if !errors.As(err, &problems) {
			a.log.Error("reload refused: the running schools are kept", "error", err.Error())
			return
		}
		for _, p := range problems {
			a.log.Error("reload: configuration problem", "problem", p.String())
		}
		a.log.Error("reload refused: the running schools are kept", "problems", len(problems))
		return
	}
	if !reflect.DeepEqual(cfg.Server, a.cfg.Server) {
		a.log.Warn("reload: the server settings have changed; they take effect at the next start")
	}
	a.log.Info("reload: schools replaced", "schools", len(next.All()))
}

// Start-up retry pacing: the first retry comes soon (a database starting beside the server is
// usually up in a second or two), later ones back off so that many replicas waiting for one
// database do not hammer it.
const (
	startupFirstRetry = 500 * time.Millisecond
	startupMaxRetry   = 5 * time.Second
	// startupAttemptTimeout bounds one attempt, so that an address that drops packets (rather
	// than refusing) does not hold the first attempt past the whole budget.
	startupAttemptTimeout = 10 * time.Second
)

// startup is the clock of retryStartup: how long it may try, what time it is and how it waits.
// Tests give it a fake clock.
type startup struct {
	timeout time.Duration
	now     func() time.Time
	sleep   func(ctx context.Context, d time.Duration) error
}

func startupClock(timeout time.Duration) startup {
	return startup{timeout: timeout, now: time.Now, sleep: func(ctx context.Context, d time.Duration) error {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}}
}

// retryStartup calls attempt until it succeeds, ctx ends, or c.timeout has passed since the
// first attempt, waiting startupFirstRetry after the first failure and twice as long after each
// next one, up to startupMaxRetry; the last wait is cut so that a final attempt falls on the
// deadline. Every failed attempt is logged. With c.timeout 0 it tries once.
func retryStartup(ctx context.Context, log *slog.Logger, c startup, attempt func(context.Context) error) error {
	start := c.now()
	deadline := start.Add(c.timeout)
	wait := startupFirstRetry
	for n := 1; ; n++ {
		actx, cancel := context.WithTimeout(ctx, startupAttemptTimeout)
		err := attempt(actx)
		cancel()
		if err == nil {
			if n > 1 {
				log.Info("database reachable", "attempt", n, "after", c.now().Sub(start).Round(time.Millisecond).String())
			}
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		left := deadline.Sub(c.now())
		if left <= 0 {
			log.Error("database unreachable: giving up", "attempt", n, "error", err.Error(),
				"startup_timeout", c.timeout.String())
			return fmt.Errorf("database unreachable after %d attempts in %s (database.startup_timeout): %w",
				n, c.timeout, err)
		}
		d := min(wait, left)
		log.Warn("database unreachable: retrying", "attempt", n, "error", err.Error(),
			"retry_in", d.String(), "gives_up_in", left.Round(time.Millisecond).String())
		if err := c.sleep(ctx, d); err != nil {
			return errors.Join(err, ctx.Err())
		}
		wait = min(2*wait, startupMaxRetry)
	}
}
