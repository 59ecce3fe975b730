package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/school"
)

func newSchoolsCommand(g *globalFlags) *cobra.Command {
	cmd := commandGroup("schools", "Show or check the school files", "",
		configCommand(g, "list", "List the configured schools", func(cmd *cobra.Command, _ *config.Config, reg *school.Registry) error {
			return printTable(cmd.OutOrStdout(), "SCHOOL_ID\tSUBDOMAIN\tNAME\tBASE_URL\tMCP_CONNECTIONS\tID_TOKENS", func(w io.Writer) error {
				for _, t := range reg.All() {
					fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%t\t%t\n", t.SchoolID, t.Subdomain, t.Name, t.Origin,
						t.Features.MCPConnections, t.Features.IDTokens)
				}
				return nil
			})
		}),
		configCommand(g, "validate", "Check the server file and every school file; exit 2 listing every problem", func(cmd *cobra.Command, cfg *config.Config, _ *school.Registry) error {
			fmt.Fprintf(cmd.OutOrStdout(), "configuration is valid: %s\n", countOf(len(cfg.Schools), "school"))
			return nil
		}))
	// tenants is the command's earlier name.
	cmd.Aliases = []string{"tenants"}
	return cmd
}

// configCommand makes a command that reads the configuration and its schools (and no database):
// run is called once they are loaded and valid.
func configCommand(g *globalFlags, use, short string, run func(cmd *cobra.Command, cfg *config.Config, reg *school.Registry) error) *cobra.Command {
	return &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, reg, err := loadSchools(g)
			if err != nil {
				return err
			}
			return run(cmd, cfg, reg)
		},
	}
}
