package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/proctorhq/proctor/server"
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

The database schema must be current: run "proctor migrate" first, or pass --migrate.

With --only member-api the process serves the GraphQL Member API alone, verifying tokens
through the authorization server's internal introspection endpoint (member_api.introspection_url
and member_api.api_key) and reading member data from the same database.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := openApp(cmd.Context(), g, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer a.close()
			switch only {
			case "", server.OnlyMemberAPI:
			default:
				return fmt.Errorf("--only accepts %q", server.OnlyMemberAPI)
			}
			a.only = only
			return a.serve(cmd.Context(), migrate)
		},
	}
	cmd.Flags().BoolVar(&migrate, "migrate", false, "apply pending migrations before serving")
	cmd.Flags().StringVar(&only, "only", "", "serve one part alone: member-api")
	return cmd
}

// serve migrates if asked, checks the schema, syncs the schools and serves until ctx ends.
func (a *app) serve(ctx context.Context, migrate bool) error {
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
	srv, err := server.New(server.Deps{Config: a.cfg.Server, Tenants: a.tenants, Store: a.store, Logger: a.log, Only: a.only})
	if err != nil {
		return err
	}
	return srv.Run(ctx)
}
