package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/proctorhq/proctor/seed"
)

func newSeedCommand(g *globalFlags) *cobra.Command {
	var schoolID int64
	cmd := &cobra.Command{
		Use:   "seed --school ID FILE",
		Short: "Load a YAML or JSON fixture into a school",
		Long: `Load a fixture (docs/seed-format.md) into the school: members with roles and passwords,
courses with curriculum, enrollments, progress, payments, notifications, products, services,
events and the rest. The whole file is checked first and every problem is listed with its line;
then it is applied in one transaction, so a failure writes nothing. Applying the same file again
changes nothing.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := os.Open(args[0])
			if err != nil {
				return err
			}
			defer f.Close()
			fx, err := seed.Load(args[0], f)
			if err != nil {
				return err
			}
			if problems := fx.Validate(); len(problems) > 0 {
				return problems
			}
			return withSchool(cmd, g, schoolID, func(ctx context.Context, a *app) error {
				stats, err := fx.Apply(ctx, a.store, seed.Options{Progress: seed.ProgressLine(cmd.ErrOrStderr(), 1000)})
				if err != nil {
					return err
				}
				fmt.Fprint(cmd.OutOrStdout(), seed.FormatStats(stats))
				return nil
			})
		},
	}
	cmd.Flags().Int64Var(&schoolID, "school", 0, "school_id of the school to load the fixture into")
	_ = cmd.MarkFlagRequired("school")
	return cmd
}
