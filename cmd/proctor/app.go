package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/server"
	"github.com/proctorhq/proctor/storage/gormstore"
)

// app is what the commands that touch the database share.
type app struct {
	cfg     *config.Config
	schools *school.Registry
	store   *gormstore.Store
	log     *slog.Logger
	// only is serve's --only value ("" serves everything).
	only string
	// reload, when set, re-reads the school files on SIGHUP while serving (serve only).
	reload *reloader
}

// loadSchools reads and validates the configuration and indexes its schools.
func loadSchools(g *globalFlags) (*config.Config, *school.Registry, error) {
	cfg, err := config.Load(g.configFile)
	if err != nil {
		return nil, nil, err
	}
	reg, err := buildRegistry(cfg.Schools)
	return cfg, reg, err
}

func buildRegistry(schools []config.School) (*school.Registry, error) {
	list := make([]*school.School, 0, len(schools))
	for _, c := range schools {
		t, err := school.New(c)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.File, err)
		}
		list = append(list, t)
	}
	return school.NewRegistry(list)
}

// openApp loads the configuration, opens the database and checks that its schema is current
// (only migrate and serve --migrate change it).
func openApp(ctx context.Context, g *globalFlags, logOut io.Writer) (*app, error) {
	cfg, reg, err := loadSchools(g)
	if err != nil {
		return nil, err
	}
	return openStore(ctx, cfg, reg, newLogger(cfg.Server.Log, logOut))
}

func openStore(ctx context.Context, cfg *config.Config, reg *school.Registry, log *slog.Logger) (*app, error) {
	st, err := gormstore.Open(ctx, gormstore.Config{
		Driver:              cfg.Server.Database.Driver,
		DSN:                 cfg.Server.Database.DSN,
		MaxOpenConns:        cfg.Server.Database.MaxOpenConns,
		CurriculumCacheRows: cfg.Server.Database.CurriculumCacheRows,
		Logger:              log,
	})
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	return &app{cfg: cfg, schools: reg, store: st, log: log}, nil
}

func (a *app) close() { a.store.Close() }

// requireCurrentSchema refuses to work on a database with pending migrations.
func (a *app) requireCurrentSchema(ctx context.Context) error {
	pending, err := a.store.PendingMigrations(ctx)
	if err != nil {
		return err
	}
	if len(pending) > 0 {
		return fmt.Errorf("the database has %d pending migrations (%s): run `proctor migrate` first",
			len(pending), strings.Join(pending, ", "))
	}
	return nil
}

// syncSchools makes sure every configured school has its row (ids and names come from the
// school files).
func (a *app) syncSchools(ctx context.Context) error {
	return server.SyncSchools(ctx, a.store, a.schools)
}

// schoolContext returns ctx carrying the school with the given id.
func (a *app) schoolContext(ctx context.Context, schoolID int64) (context.Context, *school.School, error) {
	t, ok := a.schools.BySchoolID(schoolID)
	if !ok {
		return nil, nil, fmt.Errorf("no school with school_id %d (see `proctor schools list`)", schoolID)
	}
	return school.NewContext(ctx, t), t, nil
}

// newLogger builds the process logger from the log settings.
func newLogger(c config.Log, w io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(c.Level))
	opts := &slog.HandlerOptions{Level: level}
	if c.Format == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}

// recorder records the command line's security events in the log of the school its context
// carries. Nothing counts them: the counter is the running server's.
func (a *app) recorder() *audit.Recorder { return audit.NewRecorder(a.store, a.log) }

// note records e, done at the command line (Actor cli), after the change it tells of: a failure
// is logged, the change stands.
func (a *app) note(ctx context.Context, e audit.Event) {
	e.Actor = audit.ActorCLI
	a.recorder().Note(ctx, e)
}
