package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

func newMigrateCommand(g *globalFlags) *cobra.Command {
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Apply pending database migrations",
		Long: `Apply the versioned schema migrations that the database has not seen yet, each in its own
transaction, in order. Safe to run repeatedly and from several replicas at once.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := openApp(cmd.Context(), g, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer a.close()
			// A dry run lists what applying would: the same lines, another verb and summary.
			run, verb, summary := a.store.Migrate, "applied", "%d migrations applied; the schema is current\n"
			if dryRun {
				run, verb, summary = a.store.PendingMigrations, "pending", "%d pending migrations\n"
			}
			names, err := run(cmd.Context())
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			for _, m := range names {
				fmt.Fprintln(out, verb, m)
			}
			fmt.Fprintf(out, summary, len(names))
			return nil
		},
	}
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "list pending migrations without applying them")
	return cmd
}
