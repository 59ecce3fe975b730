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
			out := cmd.OutOrStdout()
			if dryRun {
				pending, err := a.store.PendingMigrations(cmd.Context())
				if err != nil {
					return err
				}
				for _, m := range pending {
					fmt.Fprintln(out, "pending", m)
				}
				fmt.Fprintf(out, "%d pending migrations\n", len(pending))
				return nil
			}
			applied, err := a.store.Migrate(cmd.Context())
			if err != nil {
				return err
			}
			for _, m := range applied {
				fmt.Fprintln(out, "applied", m)
			}
			fmt.Fprintf(out, "%d migrations applied; the schema is current\n", len(applied))
			return nil
		},
	}
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "list pending migrations without applying them")
	return cmd
}
