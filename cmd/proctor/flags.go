package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/proctorhq/proctor/storage"
)

// commandGroup makes a command that only groups its subcommands (clients, events, keys ...).
func commandGroup(use, short, long string, subcommands ...*cobra.Command) *cobra.Command {
	cmd := &cobra.Command{Use: use, Short: short, Long: long}
	cmd.AddCommand(subcommands...)
	return cmd
}

// schoolFlag declares the required --school flag of a command about one school.
func schoolFlag(cmd *cobra.Command, schoolID *int64) {
	cmd.Flags().Int64Var(schoolID, "school", 0, "school_id of the school")
	_ = cmd.MarkFlagRequired("school")
}

// schoolCommand makes a command about one school, named by the required --school flag: it opens
// the school and calls run with the school's context and the command's arguments.
func schoolCommand(g *globalFlags, cmd *cobra.Command, run func(ctx context.Context, cmd *cobra.Command, a *app, schoolID int64, args []string) error) *cobra.Command {
	var schoolID int64
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		return withSchool(cmd, g, schoolID, func(ctx context.Context, a *app) error {
			return run(ctx, cmd, a, schoolID, args)
		})
	}
	schoolFlag(cmd, &schoolID)
	return cmd
}

// memberFlags declares the required --school and --email flags of a command about one member of
// a school.
func memberFlags(cmd *cobra.Command, schoolID *int64, email *string) {
	schoolFlag(cmd, schoolID)
	cmd.Flags().StringVar(email, "email", "", "the member's e-mail address")
	_ = cmd.MarkFlagRequired("email")
}

// memberCommand makes a command about one member of a school, named by --school and --email: it
// checks the address, opens the school and calls run with the school's context and the address in
// its normal form.
func memberCommand(g *globalFlags, cmd *cobra.Command, run func(ctx context.Context, cmd *cobra.Command, a *app, schoolID int64, email string) error) *cobra.Command {
	var (
		schoolID int64
		email    string
	)
	cmd.Args = cobra.NoArgs
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		email, err := memberAddress(email)
		if err != nil {
			return err
		}
		return withSchool(cmd, g, schoolID, func(ctx context.Context, a *app) error {
			return run(ctx, cmd, a, schoolID, email)
		})
	}
	memberFlags(cmd, &schoolID, &email)
	return cmd
}

// memberAddress is the normal form of an e-mail address given on the command line, or the error
// that says it is no address.
func memberAddress(email string) (string, error) {
	email = storage.NormaliseEmail(email)
	if !storage.ValidEmail(email) {
		return "", notAnAddress(email)
	}
	return email, nil
}

// countOf is n things for people to read: "1 school", "2 schools" (noun takes an s).
func countOf(n int, noun string) string {
	if n != 1 {
		noun += "s"
	}
	return fmt.Sprintf("%d %s", n, noun)
}

// printTable writes a table for people to out: header names the tab-separated columns, and rows
// writes one tab-separated line a row to the writer it is given, which aligns the columns.
func printTable(out io.Writer, header string, rows func(w io.Writer) error) error {
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, header)
	if err := rows(w); err != nil {
		return err
	}
	return w.Flush()
}
