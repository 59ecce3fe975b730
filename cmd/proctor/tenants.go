package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

func newTenantsCommand(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tenants",
		Short: "Show or check the tenant files",
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List the configured schools",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, reg, err := loadTenants(g)
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
		Short: "Check the server file and every tenant file; exit 2 listing every problem",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, _, err := loadTenants(g)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "configuration is valid: %d tenants\n", len(cfg.Tenants))
			return nil
		},
	})
	return cmd
}
