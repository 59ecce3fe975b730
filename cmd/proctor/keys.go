package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/keys"
	"github.com/proctorhq/proctor/school"
)

func newKeysCommand(g *globalFlags) *cobra.Command {
	return commandGroup("keys", "Rotate or list a school's ID-token signing keys",
		`Each school signs ID tokens with its own ES256 key, stored encrypted with the system secret
(docs/keys.md). A school's first key is created when it is first needed.`,
		newKeysRotateCommand(g), newKeysListCommand(g))
}

// keyManager is the signing-key manager of the school store the command opened, sealing keys
// under the configured system secret as the server does.
func keyManager(a *app) *keys.Manager {
	return keys.NewManager(a.store, a.cfg.Server.Secret, keys.Options{})
}

func newKeysRotateCommand(g *globalFlags) *cobra.Command {
	var (
		secretChange bool
		force        bool
	)
	cmd := schoolCommand(g, &cobra.Command{
		Use:   "rotate --school ID [--after-secret-change] [--force]",
		Short: "Make a new signing key current and print its kid",
		Long: `Make a new signing key current. The key it replaces stays published in the JWKS, so ID tokens
it signed still verify; keys older than that are retired. Running servers start signing with the
new key within their key cache time (30 seconds by default).

Rotation refuses to run when the current key does not decrypt with the configured secret, since
the servers could not open a key stored under a different one. After changing the system secret
on purpose, rotate with --after-secret-change to replace the keys sealed under the old secret.

A school whose ID tokens are off (features.id_tokens false in its school file) signs nothing, so
rotation refuses there unless --force: the key would only be published, unused.`,
		Args: cobra.NoArgs,
	}, func(ctx context.Context, cmd *cobra.Command, a *app, schoolID int64, args []string) error {
		t, err := school.FromContext(ctx)
		if err != nil {
			return err
		}
		if !t.Features.IDTokens && !force {
			return fmt.Errorf("school %d does not issue ID tokens (features.id_tokens is false in its school file), so no server would sign with a new key; turn ID tokens on first, or add --force to rotate anyway", schoolID)
		}
		m := keyManager(a)
		rotate := m.Rotate
		if secretChange {
			rotate = m.RotateAfterSecretChange
		}
		k, err := rotate(ctx)
		if errors.Is(err, keys.ErrDecrypt) && !secretChange {
			return fmt.Errorf("%w\n(check that this command uses the servers' secret; if the secret was changed on purpose, add --after-secret-change)", err)
		}
		if err != nil {
			return err
		}
		detail := "kid " + k.KID
		if secretChange {
			detail += ", after a change of the system secret"
		}
		a.note(ctx, audit.Event{Kind: audit.KindSigningKeyRotated, Detail: detail})
		// The kid alone on stdout, so scripts can capture it.
		fmt.Fprintln(cmd.OutOrStdout(), k.KID)
		return nil
	})
	cmd.Flags().BoolVar(&secretChange, "after-secret-change", false,
		"rotate even though the current key does not decrypt (the system secret was changed)")
	cmd.Flags().BoolVar(&force, "force", false, "rotate even though the school's ID tokens are off")
	return cmd
}

func newKeysListCommand(g *globalFlags) *cobra.Command {
	return schoolCommand(g, &cobra.Command{
		Use:   "list --school ID",
		Short: "List a school's signing keys, newest first",
		Long: `List a school's signing keys, newest first. CURRENT marks the key new ID tokens are signed with;
every key without a RETIRED time is published in the JWKS.`,
		Args: cobra.NoArgs,
	}, func(ctx context.Context, cmd *cobra.Command, a *app, schoolID int64, args []string) error {
		list, err := keyManager(a).List(ctx)
		if err != nil {
			return err
		}
		return printTable(cmd.OutOrStdout(), "KID\tCREATED\tRETIRED\tCURRENT", func(w io.Writer) error {
			for _, k := range list {
				retired, current := "-", ""
				if k.RetiredAt != nil {
					retired = k.RetiredAt.UTC().Format(time.RFC3339)
				}
				if k.Current {
					current = "*"
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", k.KID, k.CreatedAt.UTC().Format(time.RFC3339), retired, current)
			}
			return nil
		})
	})
}
