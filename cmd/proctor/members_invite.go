package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/proctorhq/proctor/account"
	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/i18n"
	"github.com/proctorhq/proctor/mail"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/templates"
)

func newMembersInviteCommand(g *globalFlags) *cobra.Command {
	var (
		schoolID        int64
		email, name     string
		roles           string
		withoutPassword bool
	)
	cmd := &cobra.Command{
		Use:   "invite --school ID (--email E [--name N] [--role R[,R]] | --without-password)",
		Short: "Invite a member by e-mail, or every member of a school who has no password yet",
		Long: `Invite someone to a school: they get an e-mail with a one-time link, valid 7 days, that opens
a page on the school's own origin where they choose a password and are signed in. An address that
has no identity yet gets one; an identity that already exists (at another school) joins this
school and keeps its password. Inviting again replaces the earlier link.

--without-password invites every member of the school who has no password yet, for instance
after a seed file imported members without passwords.

The messages go into the outbox in the database; a running server's mail worker sends them.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if withoutPassword == (email != "") {
				return errors.New("give either --email or --without-password")
			}
			rs, err := checkNewMember(&email, roles, !withoutPassword)
			if err != nil {
				return err
			}
			if len(rs) == 0 {
				return errors.New("an invitation needs at least one role")
			}
			return withSchool(cmd, g, schoolID, func(ctx context.Context, a *app) error {
				svc, ctx, err := a.accountService(ctx)
				if err != nil {
					return err
				}
				if withoutPassword {
					return inviteWithoutPassword(ctx, a, svc, cmd.OutOrStdout())
				}
				res, err := svc.Invite(ctx, account.Invitation{Email: email, Name: name, Roles: rs, By: audit.Event{Actor: audit.ActorCLI}})
				if err != nil {
					return err
				}
				printInvited(cmd.OutOrStdout(), res)
				return nil
			})
		},
	}
	newMemberFlags(cmd, &schoolID, &email, &name, &roles, "e-mail address to invite", "display name (for a new identity)")
	cmd.Flags().BoolVar(&withoutPassword, "without-password", false, "invite every member of the school who has no password yet")
	return cmd
}

// accountService builds the invitation service over the app's store: its messages go into the
// outbox, which the server's mail worker empties. It returns ctx (which carries the school)
// with the localizer of the school's locale and time zone: a command has no browser to ask for
// a language, so its messages are written as the school's pages are for a browser that asks
// for none of ours.
func (a *app) accountService(ctx context.Context) (*account.Service, context.Context, error) {
	t, err := school.FromContext(ctx)
	if err != nil {
		return nil, nil, err
	}
	q, err := mail.NewQueue(a.store, a.cfg.Server.Secret, nil)
	if err != nil {
		return nil, nil, err
	}
	tpl, err := templates.New()
	if err != nil {
		return nil, nil, err
	}
	svc, err := account.NewService(account.ServiceDeps{Store: a.store, Mail: q, Templates: tpl, Secret: a.cfg.Server.Secret, Logger: a.log, Audit: a.recorder()})
	if err != nil {
		return nil, nil, err
	}
	return svc, i18n.NewContext(ctx, tpl.Catalog().Localizer(t.Locale, t.Location)), nil
}

// inviteWithoutPassword invites every member of the context's school whose identity has no
// password, each in its own transaction, keeping their roles.
func inviteWithoutPassword(ctx context.Context, a *app, svc *account.Service, out io.Writer) error {
	var pending []storage.MemberRoles
	err := storage.EachPage(func(p storage.Page) ([]storage.MemberRoles, string, error) {
		return a.store.ListSchoolMembers(ctx, p)
	}, func(m storage.MemberRoles) {
		if m.Member.PasswordHash == "" {
			pending = append(pending, m)
		}
	})
	if err != nil {
		return err
	}
	for _, m := range pending {
		res, err := svc.Invite(ctx, account.Invitation{Email: m.Member.Email, Name: m.Member.Name, Roles: m.Roles, By: audit.Event{Actor: audit.ActorCLI}})
		if err != nil {
			return fmt.Errorf("invite member %d: %w", m.Member.ID, err)
		}
		printInvited(out, res)
	}
	fmt.Fprintf(out, "%d invitations queued\n", len(pending))
	return nil
}

func printInvited(out io.Writer, res account.InviteResult) {
	what := "invited"
	if res.Created {
		what = "created and invited"
	}
	fmt.Fprintf(out, "%s member %d <%s>\n", what, res.Member.ID, res.Member.Email)
}
