package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/proctorhq/proctor/audit"
)

func newMembersResetMFACommand(g *globalFlags) *cobra.Command {
	return memberCommand(g, &cobra.Command{
		Use:   "reset-mfa --school ID --email E",
		Short: "Remove every second factor of a member at a school",
		Long: `Remove the member's second factors at the school: the authenticator app (TOTP), its recovery
codes and passkeys. The member then signs in with the password alone and may enrol again; at a
school whose security.operator_mfa is required, an owner or admin is asked to enrol before the
administration pages. It is the last resort of an owner who has lost every factor. Factors at
other schools stay. The address must belong to someone holding a role at the school.`,
	}, func(ctx context.Context, cmd *cobra.Command, a *app, schoolID int64, email string) error {
		m, roles, err := memberWithRoles(ctx, a, email, schoolID)
		if err != nil {
			return err
		}
		if len(roles) == 0 {
			return noMember(email, schoolID)
		}
		n, err := a.store.ResetMemberFactors(ctx, m.ID)
		if err != nil {
			return err
		}
		// Unlike note, a failure to log the reset fails the command.
		if err := a.recorder().Record(ctx, audit.Event{
			Kind: audit.KindFactorsReset, Actor: audit.ActorCLI, SubjectID: m.ID, Detail: fmt.Sprintf("%d removed", n),
		}); err != nil {
			return err
		}
		if n == 0 {
			fmt.Fprintf(cmd.OutOrStdout(), "member %d <%s> has no second factor at school %d: nothing to reset\n", m.ID, m.Email, schoolID)
			return nil
		}
		fmt.Fprintf(cmd.OutOrStdout(), "removed the second factors of member %d <%s> at school %d: they sign in with their password alone until they enrol again\n", m.ID, m.Email, schoolID)
		return nil
	})
}
