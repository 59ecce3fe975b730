package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

func newSchoolsCommand(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use: "schools",
		// tenants is the command's earlier name.
		Aliases: []string{"tenants"},
		Short:   "Show or check the school files",
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List the configured schools",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, reg, err := loadSchools(g)
			if err != nil {
				return err
			}
			return printTable(cmd.OutOrStdout(), "SCHOOL_ID\tSUBDOMAIN\tNAME\tBASE_URL\tMCP_CONNECTIONS\tID_TOKENS", func(w io.Writer) error {
				for _, t := range reg.All() {
					fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%t\t%t\n", t.SchoolID, t.Subdomain, t.Name, t.Origin,
						t.Features.MCPConnections, t.Features.IDTokens)
				}
				return nil
			})
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "validate",
		Short: "Check the server file and every school file; exit 2 listing every problem",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, _, err := loadSchools(g)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "configuration is valid: %d schools\n", len(cfg.Schools))
			return nil
		},
	})
	return cmd
}
