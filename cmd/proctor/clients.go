package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/client"
	"github.com/proctorhq/proctor/scope"
	"github.com/proctorhq/proctor/storage"
)

func newClientsCommand(g *globalFlags) *cobra.Command {
	return commandGroup("clients", "Manage a school's OAuth clients", "",
		newClientsCreateCommand(g), newClientsListCommand(g), newClientsRotateCommand(g), newClientsDeleteCommand(g))
}

// clientOutput is what create and rotate-secret print with --json.
type clientOutput struct {
	ClientID                string   `json:"client_id"`
	ClientName              string   `json:"client_name"`
	ClientSecret            string   `json:"client_secret,omitempty"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	RedirectURIs            []string `json:"redirect_uris"`
	Scope                   string   `json:"scope"`
}

func printClient(cmd *cobra.Command, asJSON bool, c storage.Client, secret string) error {
	out := clientOutput{ClientID: c.ID, ClientName: c.Name, ClientSecret: secret,
		TokenEndpointAuthMethod: c.TokenEndpointAuthMethod, RedirectURIs: c.RedirectURIs, Scope: strings.Join(c.Scopes, " ")}
	w := cmd.OutOrStdout()
	if asJSON {
		return json.NewEncoder(w).Encode(out)
	}
	fmt.Fprintf(w, "client_id:     %s\n", out.ClientID)
	if secret != "" {
		fmt.Fprintf(w, "client_secret: %s\n(shown once: it is stored only as a keyed hash)\n", secret)
	}
	return nil
}

func newClientsCreateCommand(g *globalFlags) *cobra.Command {
	var (
		schoolID     int64
		name, kind   string
		redirects    []string
		scopes       string
		confidential bool
		asJSON       bool
	)
	cmd := &cobra.Command{
		Use:   "create --school ID --name N --redirect-uri U [--scopes S] [--confidential]",
		Short: "Create a member (default) or operator client",
		Long: `Create an OAuth client at the school. A member client acts for one signed-in member (scopes
from openid, profile, email, account:read, account:write); an operator client uses the operator
scopes. Without --confidential the client is public (token_endpoint_auth_method none, PKCE);
with it a 256-bit secret is issued, printed once, and required at the token and revocation
endpoints. The name is 1 to 100 characters; 1 to 10 redirect URIs, each https or http on
127.0.0.1 or [::1]. These are the rules of the operator pages too.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			req, err := clientRequest(storage.ClientKind(kind), name, redirects, scopes, confidential)
			if err != nil {
				return err
			}
			return withSchool(cmd, g, schoolID, func(ctx context.Context, a *app) error {
				c, secret, err := clientManager(a).Create(ctx, req)
				if err != nil {
					return err
				}
				a.note(ctx, audit.Event{Kind: audit.KindClientCreated, ClientID: c.ID, Scopes: c.Scopes, Detail: client.EventDetail(c)})
				return printClient(cmd, asJSON, c, secret)
			})
		},
	}
	schoolFlag(cmd, &schoolID)
	cmd.Flags().StringVar(&name, "name", "", "name shown on the consent page")
	cmd.Flags().StringVar(&kind, "kind", string(storage.ClientMember), "member or operator")
	cmd.Flags().StringArrayVar(&redirects, "redirect-uri", nil, "redirect URI (repeatable, up to 10): https, or http on 127.0.0.1 / [::1] (any port matches)")
	cmd.Flags().StringVar(&scopes, "scopes", "", "space-separated scopes (default: all of the kind's scopes)")
	cmd.Flags().BoolVar(&confidential, "confidential", false, "issue a client secret (client_secret_post)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the client as JSON")
	for _, f := range []string{"name", "redirect-uri"} {
		_ = cmd.MarkFlagRequired(f)
	}
	return cmd
}

// clientManager is the client manager of the school store the command opened, hashing
// secrets under the configured system secret as the server does.
func clientManager(a *app) *client.Manager { return client.NewManager(a.store, a.cfg.Server.Secret) }

// clientRequest turns the flags into a checked request. The rules (name, redirect URIs,
// scopes per kind) are package client's, the same the operator pages apply; an empty --scopes
// asks for every scope of the kind.
func clientRequest(kind storage.ClientKind, name string, redirects []string, param string, confidential bool) (client.Request, error) {
	req := client.Request{Kind: kind, Name: name, RedirectURIs: redirects, Confidential: confidential}
	if kind != storage.ClientMember && kind != storage.ClientOperator {
		return req, fmt.Errorf("--kind must be member or operator, got %q", kind)
	}
	if param == "" {
		for _, s := range client.Scopes(kind) {
			req.Scopes = append(req.Scopes, s.Name)
		}
	} else {
		list, ok := scope.Parse(param)
		if !ok || len(list) == 0 {
			return req, fmt.Errorf("--scopes is not a space-separated scope list")
		}
		req.Scopes = list
	}
	return client.CheckRequest(req)
}

func newClientsListCommand(g *globalFlags) *cobra.Command {
	return schoolListCommand(g, "List a school's clients", "CLIENT_ID\tKIND\tNAME\tAUTH\tREDIRECT_URIS",
		func(ctx context.Context, a *app, p storage.Page) ([]storage.Client, string, error) {
			return a.store.ListClients(ctx, "", p)
		}, func(w io.Writer, c storage.Client) {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", c.ID, c.Kind, c.Name, c.TokenEndpointAuthMethod, strings.Join(c.RedirectURIs, " "))
		})
}

func newClientsRotateCommand(g *globalFlags) *cobra.Command {
	var asJSON bool
	cmd := schoolCommand(g, &cobra.Command{
		Use:   "rotate-secret --school ID CLIENT_ID",
		Short: "Issue a new secret for a confidential client (the old one stops working)",
		Args:  cobra.ExactArgs(1),
	}, func(ctx context.Context, cmd *cobra.Command, a *app, schoolID int64, args []string) error {
		c, secret, err := clientManager(a).RotateSecret(ctx, args[0], "")
		if errors.Is(err, client.ErrPublic) {
			return errors.New("this is a public client: it has no secret to rotate")
		}
		if errors.Is(err, storage.ErrNotFound) {
			return noClient(args[0], schoolID)
		}
		if err != nil {
			return err
		}
		a.note(ctx, audit.Event{Kind: audit.KindClientSecretRotated, ClientID: c.ID})
		return printClient(cmd, asJSON, c, secret)
	})
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the client as JSON")
	return cmd
}

func newClientsDeleteCommand(g *globalFlags) *cobra.Command {
	return schoolCommand(g, &cobra.Command{
		Use:   "delete --school ID CLIENT_ID",
		Short: "Delete a client and revoke every token it holds",
		Args:  cobra.ExactArgs(1),
	}, func(ctx context.Context, cmd *cobra.Command, a *app, schoolID int64, args []string) error {
		// Read first, for the event's scopes; DeleteClient says whether it was there.
		c, _ := a.store.GetClient(ctx, args[0])
		err := clientManager(a).Delete(ctx, args[0], time.Now())
		if errors.Is(err, storage.ErrNotFound) {
			return noClient(args[0], schoolID)
		}
		if err != nil {
			return err
		}
		a.note(ctx, audit.Event{Kind: audit.KindClientDeleted, ClientID: args[0], Scopes: c.Scopes, Detail: "tokens revoked"})
		fmt.Fprintf(cmd.OutOrStdout(), "deleted client %s and revoked its tokens\n", args[0])
		return nil
	})
}

// noClient is what a command says when the client it was given is not one of the school's
// (clients are school data: another school's client id is as unknown as a made-up one).
func noClient(id string, schoolID int64) error {
	return fmt.Errorf("no client %s at school %d (see `proctor clients list --school %d`)", id, schoolID, schoolID)
}
