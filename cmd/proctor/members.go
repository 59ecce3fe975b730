package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/password"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/gormstore"
)

// The unlocks `members unlock` writes are read by every server's sign-in page.
var _ login.Unlocks = (*gormstore.Store)(nil)

func newMembersCommand(g *globalFlags) *cobra.Command {
	return commandGroup("members", "Manage members and their roles at a school", "",
		newMembersCreateCommand(g), newMembersListCommand(g), newMembersSetRoleCommand(g), newMembersUnlockCommand(g),
		newMembersInviteCommand(g), newMembersResetLinkCommand(g), newMembersResetMFACommand(g))
}

// withApp opens the app, checks the schema and runs fn.
func withApp(cmd *cobra.Command, g *globalFlags, fn func(ctx context.Context, a *app) error) error {
	ctx := cmd.Context()
	a, err := openApp(ctx, g, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	defer a.close()
	if err := a.requireCurrentSchema(ctx); err != nil {
		return err
	}
	return fn(ctx, a)
}

// withSchool opens the app, checks the schema, syncs the schools and runs fn with a context
// carrying the school --school names.
func withSchool(cmd *cobra.Command, g *globalFlags, schoolID int64, fn func(ctx context.Context, a *app) error) error {
	return withApp(cmd, g, func(ctx context.Context, a *app) error {
		if err := a.syncSchools(ctx); err != nil {
			return err
		}
		sctx, _, err := a.schoolContext(ctx, schoolID)
		if err != nil {
			return err
		}
		return fn(sctx, a)
	})
}

// parseRoles reads a comma-separated role list; "none" means no role.
func parseRoles(s string) ([]storage.Role, error) {
	if s == "none" {
		return nil, nil
	}
	var roles []storage.Role
	for _, r := range strings.Split(s, ",") {
		role := storage.Role(strings.TrimSpace(r))
		if !role.Valid() {
			return nil, fmt.Errorf("unknown role %q (owner, admin, lecturer, student, or none)", r)
		}
		roles = append(roles, role)
	}
	return roles, nil
}

// newMemberFlags declares the flags of a command that brings someone into a school: --school,
// --email, --name and --role (student unless given); emailUsage and nameUsage say what the
// address and the name are for.
func newMemberFlags(cmd *cobra.Command, schoolID *int64, email, name, roles *string, emailUsage, nameUsage string) {
	schoolFlag(cmd, schoolID)
	cmd.Flags().StringVar(email, "email", "", emailUsage)
	cmd.Flags().StringVar(name, "name", "", nameUsage)
	cmd.Flags().StringVar(roles, "role", "student", "roles at the school, comma-separated")
}

// checkNewMember puts the address of newMemberFlags in its normal form, unless the command runs
// without one, and reads the roles.
func checkNewMember(email *string, roles string, withAddress bool) ([]storage.Role, error) {
	if withAddress {
		var err error
		if *email, err = memberAddress(*email); err != nil {
			return nil, err
		}
	}
	return parseRoles(roles)
}

func newMembersCreateCommand(g *globalFlags) *cobra.Command {
	var (
		schoolID      int64
		email, name   string
		roles         string
		passwordStdin bool
	)
	cmd := &cobra.Command{
		Use:   "create --school ID --email E --name N [--role R[,R]] [--password-stdin]",
		Short: "Create a member and give them roles at a school",
		Long: `Create a member (e-mail addresses are unique across the deployment) and give them roles at
the school. The password is read from standard input with --password-stdin; otherwise a random
one is generated and printed once.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			rs, err := checkNewMember(&email, roles, true)
			if err != nil {
				return err
			}
			pw, generated, err := readOrGeneratePassword(cmd.InOrStdin(), passwordStdin, email, name)
			if err != nil {
				return err
			}
			hash, err := password.Hash(pw, password.Default)
			if err != nil {
				return err
			}
			return withSchool(cmd, g, schoolID, func(ctx context.Context, a *app) error {
				m, err := a.store.CreateMember(ctx, storage.Member{Email: email, Name: name, PasswordHash: hash})
				if errors.Is(err, storage.ErrAlreadyExists) {
					return fmt.Errorf("a member with e-mail %s already exists (use set-role to give them roles here)", email)
				}
				if err != nil {
					return err
				}
				if err := a.store.SetRoles(ctx, m.ID, rs); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "created member %d <%s>\n", m.ID, m.Email)
				if generated {
					fmt.Fprintf(cmd.OutOrStdout(), "password: %s\n", pw)
				}
				return nil
			})
		},
	}
	newMemberFlags(cmd, &schoolID, &email, &name, &roles, "e-mail address (sign-in name)", "display name")
	cmd.Flags().BoolVar(&passwordStdin, "password-stdin", false, "read the password from the first line of standard input")
	for _, f := range []string{"email", "name"} {
		_ = cmd.MarkFlagRequired(f)
	}
	return cmd
}

// readOrGeneratePassword reads one line from in, or makes a random 128-bit password. A password
// read is held to the policy every page holds new passwords to (password.CheckPolicy), with
// avoid (the member's address and name) as the member's own words.
func readOrGeneratePassword(in io.Reader, fromStdin bool, avoid ...string) (pw string, generated bool, err error) {
	if !fromStdin {
		var b [16]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", false, err
		}
		return base64.RawURLEncoding.EncodeToString(b[:]), true, nil
	}
	line, err := bufio.NewReader(in).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", false, err
	}
	pw = strings.TrimRight(line, "\r\n")
	if err := password.CheckPolicy(pw, avoid...); err != nil {
		return "", false, fmt.Errorf("the password is refused: %w", err)
	}
	return pw, false, nil
}

func newMembersListCommand(g *globalFlags) *cobra.Command {
	return schoolListCommand(g, "List the members holding a role at a school", "ID\tEMAIL\tNAME\tROLES",
		func(ctx context.Context, a *app, p storage.Page) ([]storage.MemberRoles, string, error) {
			return a.store.ListSchoolMembers(ctx, p)
		}, func(w io.Writer, m storage.MemberRoles) {
			fmt.Fprintf(w, "%d\t%s\t%s\t%s\n", m.Member.ID, m.Member.Email, m.Member.Name, strings.Join(storage.RoleNames(m.Roles), ","))
		})
}

func newMembersSetRoleCommand(g *globalFlags) *cobra.Command {
	var (
		schoolID int64
		email    string
		roles    string
	)
	cmd := &cobra.Command{
		Use:   "set-role --school ID --email E --role R[,R]|none",
		Short: "Replace a member's roles at a school",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			rs, err := parseRoles(roles)
			if err != nil {
				return err
			}
			return withSchool(cmd, g, schoolID, func(ctx context.Context, a *app) error {
				m, before, err := memberWithRoles(ctx, a, email, schoolID)
				if err != nil {
					return err
				}
				// SetSchoolRoles is the operator API's method, so the rule that a school keeps an
				// owner is one rule; it changes only someone who already belongs to the school.
				_, err = a.store.SetSchoolRoles(ctx, m.ID, rs)
				if errors.Is(err, storage.ErrLastOwner) {
					return fmt.Errorf("member %d <%s> is the last owner of school %d: make someone else owner first, so the school keeps one", m.ID, m.Email, schoolID)
				}
				if errors.Is(err, storage.ErrNotFound) {
					// An identity from another school joins this one: it holds no role here, so
					// no owner can be lost.
					if len(rs) == 0 {
						return fmt.Errorf("member %d <%s> holds no role at school %d", m.ID, m.Email, schoolID)
					}
					err = a.store.SetRoles(ctx, m.ID, rs)
				}
				if err != nil {
					return err
				}
				after, err := a.store.GetRoles(ctx, m.ID)
				if err != nil {
					return err
				}
				if detail, changed := audit.RoleChange(storage.RoleNames(before), storage.RoleNames(after)); changed {
					a.note(ctx, audit.Event{Kind: audit.KindRoleChanged, SubjectID: m.ID, Detail: detail})
				}
				fmt.Fprintf(cmd.OutOrStdout(), "member %d <%s> now has roles: %s\n", m.ID, m.Email, roles)
				return nil
			})
		},
	}
	memberFlags(cmd, &schoolID, &email)
	cmd.Flags().StringVar(&roles, "role", "", "roles, comma-separated (owner, admin, lecturer, student), or none")
	_ = cmd.MarkFlagRequired("role")
	return cmd
}

// schoolListCommand is `list --school ID` of a group: it prints the table header and one row
// per item, every page of list.
func schoolListCommand[T any](g *globalFlags, short, header string,
	list func(ctx context.Context, a *app, p storage.Page) ([]T, string, error), row func(w io.Writer, item T),
) *cobra.Command {
	return schoolCommand(g, &cobra.Command{
		Use:   "list --school ID",
		Short: short,
		Args:  cobra.NoArgs,
	}, func(ctx context.Context, cmd *cobra.Command, a *app, schoolID int64, args []string) error {
		return printTable(cmd.OutOrStdout(), header, func(w io.Writer) error {
			return storage.EachPage(func(p storage.Page) ([]T, string, error) {
				return list(ctx, a, p)
			}, func(item T) { row(w, item) })
		})
	})
}

func newMembersUnlockCommand(g *globalFlags) *cobra.Command {
	var email string
	cmd := &cobra.Command{
		Use:   "unlock --email E",
		Short: "Lift a member's sign-in lockout at every server",
		Long: `Lift the lockout that failed sign-ins put on a member's account, at every school and every
server of the deployment, whatever rate limiter they use: the unlock is written to the database,
and each server counts the account's attempts afresh from then on. Strangers' addresses stay
limited by their own budgets.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return withApp(cmd, g, func(ctx context.Context, a *app) error {
				m, err := memberByEmail(ctx, a, email, fmt.Errorf("no member with e-mail %s at any school", email))
				if err != nil {
					return err
				}
				if err := login.UnlockAccount(ctx, a.store, m.Email, time.Now()); err != nil {
					return err
				}
				// The unlock holds at every school; each school where the member belongs
				// records it in its own log.
				schools, err := a.store.ListMemberSchools(ctx, m.ID)
				if err != nil {
					return err
				}
				for _, s := range schools {
					if sctx, _, err := a.schoolContext(ctx, s.SchoolID); err == nil {
						a.note(sctx, audit.Event{Kind: audit.KindLockoutLifted, SubjectID: m.ID})
					}
				}
				fmt.Fprintf(cmd.OutOrStdout(), "unlocked member %d <%s>: failed sign-ins count afresh from now\n", m.ID, m.Email)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&email, "email", "", "e-mail address of the member")
	_ = cmd.MarkFlagRequired("email")
	return cmd
}

// memberWithRoles finds the member with the e-mail address (normalised here) and their roles at
// the context's school; an address no member has is noMember.
func memberWithRoles(ctx context.Context, a *app, email string, schoolID int64) (storage.Member, []storage.Role, error) {
	m, err := memberByEmail(ctx, a, email, noMember(email, schoolID))
	if err != nil {
		return m, nil, err
	}
	roles, err := a.store.GetRoles(ctx, m.ID)
	return m, roles, err
}

// memberByEmail finds the member with the e-mail address (normalised here), at any school; an
// address no member has is the command's own answer, missing.
func memberByEmail(ctx context.Context, a *app, email string, missing error) (storage.Member, error) {
	m, err := a.store.GetMemberByEmail(ctx, storage.NormaliseEmail(email))
	if errors.Is(err, storage.ErrNotFound) {
		return m, missing
	}
	return m, err
}

// noMember is what a command says when no member of the school has the address it was given.
func noMember(email string, schoolID int64) error {
	return fmt.Errorf("no member with e-mail %s at school %d (see `proctor members list --school %d`)", email, schoolID, schoolID)
}

// notAnAddress refuses an --email that storage.ValidEmail, the rule of every entry point,
// does not accept.
func notAnAddress(email string) error {
	return fmt.Errorf("%q is not an e-mail address (a bare address such as ada@example.com)", email)
}
