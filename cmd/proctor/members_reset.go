package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/storage"
)

func newMembersResetLinkCommand(g *globalFlags) *cobra.Command {
	return memberCommand(g, &cobra.Command{
		Use:   "reset-link --school ID --email E",
		Short: "Send a member of a school a password-reset link",
		Long: `Send a member of the school an e-mail with a one-time link, on the school's own origin, where
they choose a new password: the same link and message the sign-in page's "forgot password" form
sends, made at once instead of after the request's delay. A newer link replaces an earlier one.
The address must belong to someone holding a role at the school.

The message goes into the outbox in the database; a running server's mail worker sends it.`,
	}, func(ctx context.Context, cmd *cobra.Command, a *app, schoolID int64, email string) error {
		svc, ctx, err := a.accountService(ctx)
		if err != nil {
			return err
		}
		err = svc.SendResetLink(ctx, email, audit.Event{Actor: audit.ActorCLI})
		if errors.Is(err, storage.ErrNotFound) {
			return noMember(email, schoolID)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(cmd.OutOrStdout(), "queued a password-reset link for <%s> at school %d: a running server's mail worker sends it\n", email, schoolID)
		return nil
	})
}
