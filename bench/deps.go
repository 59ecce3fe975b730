package bench

import (
	"context"

	"github.com/proctorhq/proctor/client"
	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/storage"
)

// Deps are what a run needs of the rest of Proctor, handed in by the composition root
// (cmd/proctor), so that bench imports no part of the server: it talks to the server it
// measures over HTTP only, and to the database through the storage API (Store) and, for its
// baselines and row counts, database/sql.
type Deps struct {
	// OpenStore opens the run's database (the SQLite file or PostgreSQL schema the run made) as
	// `proctor serve` opens it. The run migrates it and seeds its school through it, and closes
	// it before the server starts.
	OpenStore func(ctx context.Context, db config.Database) (Store, error)
	// Serve runs the server configured by cfg in this process until ctx ends; Options.InProcess
	// needs it. A child server needs nothing: it is `serve` of Options.Executable.
	Serve func(ctx context.Context, cfg *config.Config) error
}

// Store is the part of the storage API a run seeds through.
type Store interface {
	// Migrate applies the pending migrations, as `proctor migrate` does.
	Migrate(ctx context.Context) ([]string, error)
	SyncSchool(ctx context.Context, id int64, subdomain, name string) error
	storage.Importer
	// client.Store: the run's client is made by the rules `proctor clients create` applies.
	client.Store
	Close() error
}
