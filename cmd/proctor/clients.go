package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/proctorhq/proctor/authz"
	"github.com/proctorhq/proctor/scope"
	"github.com/proctorhq/proctor/storage"
)

func newClientsCommand(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "clients",
		Short: "Manage a school's OAuth clients",
	}
	cmd.AddCommand(newClientsCreateCommand(g), newClientsListCommand(g), newClientsRotateCommand(g), newClientsDeleteCommand(g))
	return cmd
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
		Use:   "create --tenant ID --name N --redirect-uri U [--scopes S] [--confidential]",
		Short: "Create a member (default) or operator client",
		Long: `Create an OAuth client at the school. A member client acts for one signed-in member (scopes
from openid, profile, email, account:read, account:write); an operator client uses the operator
scopes. Without --confidential the client is public (token_endpoint_auth_method none, PKCE);
with it a 256-bit secret is issued, printed once, and required at the token and revocation
endpoints.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			k := storage.ClientKind(kind)
			list, err := clientScopes(k, scopes)
			if err != nil {
				return err
			}
			if err := checkRedirectURIs(redirects); err != nil {
				return err
			}
			return withSchool(cmd, g, schoolID, func(ctx context.Context, a *app) error {
				id, err := authz.NewClientID()
				if err != nil {
					return err
				}
				c := storage.Client{ID: id, Kind: k, Name: name, TokenEndpointAuthMethod: storage.AuthMethodNone,
					ApplicationType: "web", RedirectURIs: redirects, Scopes: list}
				var secret string
				if confidential {
					var hash string
					secret, hash, err = authz.NewSecretHasher(authz.ClientSecretKey(a.cfg.Server.Secret)).NewClientSecret()
					if err != nil {
						return err
					}
					c.SecretHash, c.TokenEndpointAuthMethod = hash, storage.AuthMethodSecretPost
				}
				c, err = a.store.CreateClient(ctx, c)
				if err != nil {
					return err
				}
				return printClient(cmd, asJSON, c, secret)
			})
		},
	}
	cmd.Flags().Int64Var(&schoolID, "tenant", 0, "school_id of the school")
	cmd.Flags().StringVar(&name, "name", "", "name shown on the consent page")
	cmd.Flags().StringVar(&kind, "kind", string(storage.ClientMember), "member or operator")
	cmd.Flags().StringArrayVar(&redirects, "redirect-uri", nil, "redirect URI (repeatable); http://127.0.0.1/path matches any port")
	cmd.Flags().StringVar(&scopes, "scopes", "", "space-separated scopes (default: all of the kind's scopes)")
	cmd.Flags().BoolVar(&confidential, "confidential", false, "issue a client secret (client_secret_post)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the client as JSON")
	for _, f := range []string{"tenant", "name", "redirect-uri"} {
		_ = cmd.MarkFlagRequired(f)
	}
	return cmd
}

// clientScopes checks requested scopes against the client kind's audience (spec,
// Authentication 11: operator clients never hold account:*; member clients hold only identity
// and account scopes).
func clientScopes(kind storage.ClientKind, param string) ([]string, error) {
	var allowed []string
	switch kind {
	case storage.ClientMember:
		allowed = scope.NamesFor(scope.Identity, scope.Member)
	case storage.ClientOperator:
		allowed = scope.NamesFor(scope.Identity, scope.Operator)
	default:
		return nil, fmt.Errorf("--kind must be member or operator, got %q", kind)
	}
	if param == "" {
		return allowed, nil
	}
	list, ok := scope.Parse(param)
	if !ok || len(list) == 0 {
		return nil, fmt.Errorf("--scopes is not a space-separated scope list")
	}
	for _, s := range list {
		found := false
		for _, a := range allowed {
			found = found || a == s
		}
		if !found {
			return nil, fmt.Errorf("scope %q is not available to a %s client", s, kind)
		}
	}
	return list, nil
}

// checkRedirectURIs accepts absolute http(s) URIs without fragments; plain http only for
// loopback addresses (RFC 8252 section 7.3).
func checkRedirectURIs(uris []string) error {
	for _, raw := range uris {
		u, err := url.Parse(raw)
		switch {
		case err != nil || !u.IsAbs() || u.Host == "":
			return fmt.Errorf("redirect URI %q is not an absolute URL", raw)
		case u.Fragment != "" || strings.Contains(raw, "#"):
			return fmt.Errorf("redirect URI %q must not have a fragment", raw)
		case u.Scheme == "http" && u.Hostname() != "127.0.0.1" && u.Hostname() != "::1":
			return fmt.Errorf("redirect URI %q: plain http is only allowed for 127.0.0.1 and [::1]", raw)
		case u.Scheme != "http" && u.Scheme != "https":
			return fmt.Errorf("redirect URI %q must be http(s)", raw)
		}
	}
	return nil
}

func newClientsListCommand(g *globalFlags) *cobra.Command {
	var schoolID int64
	cmd := &cobra.Command{
		Use:   "list --tenant ID",
		Short: "List a school's clients",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return withSchool(cmd, g, schoolID, func(ctx context.Context, a *app) error {
				w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(w, "CLIENT_ID\tKIND\tNAME\tAUTH\tREDIRECT_URIS")
				page := storage.Page{First: 100}
				for {
					list, next, err := a.store.ListClients(ctx, "", page)
					if err != nil {
						return err
					}
					for _, c := range list {
						fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", c.ID, c.Kind, c.Name, c.TokenEndpointAuthMethod, strings.Join(c.RedirectURIs, " "))
					}
					if next == "" {
						return w.Flush()
					}
					page.After = next
				}
			})
		},
	}
	cmd.Flags().Int64Var(&schoolID, "tenant", 0, "school_id of the school")
	_ = cmd.MarkFlagRequired("tenant")
	return cmd
}

func newClientsRotateCommand(g *globalFlags) *cobra.Command {
	var (
		schoolID int64
		asJSON   bool
	)
	cmd := &cobra.Command{
		Use:   "rotate-secret --tenant ID CLIENT_ID",
		Short: "Issue a new secret for a confidential client (the old one stops working)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withSchool(cmd, g, schoolID, func(ctx context.Context, a *app) error {
				secret, hash, err := authz.NewSecretHasher(authz.ClientSecretKey(a.cfg.Server.Secret)).NewClientSecret()
				if err != nil {
					return err
				}
				c, err := a.store.UpdateClient(ctx, args[0], func(c storage.Client) (storage.Client, error) {
					if c.TokenEndpointAuthMethod != storage.AuthMethodSecretPost {
						return c, errors.New("this is a public client: it has no secret to rotate")
					}
					c.SecretHash = hash
					return c, nil
				})
				if err != nil {
					return err
				}
				return printClient(cmd, asJSON, c, secret)
			})
		},
	}
	cmd.Flags().Int64Var(&schoolID, "tenant", 0, "school_id of the school")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the client as JSON")
	_ = cmd.MarkFlagRequired("tenant")
	return cmd
}

func newClientsDeleteCommand(g *globalFlags) *cobra.Command {
	var schoolID int64
	cmd := &cobra.Command{
		Use:   "delete --tenant ID CLIENT_ID",
		Short: "Delete a client and revoke every token it holds",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withSchool(cmd, g, schoolID, func(ctx context.Context, a *app) error {
				if err := a.store.DeleteClient(ctx, args[0], time.Now()); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "deleted client %s and revoked its tokens\n", args[0])
				return nil
			})
		},
	}
	cmd.Flags().Int64Var(&schoolID, "tenant", 0, "school_id of the school")
	_ = cmd.MarkFlagRequired("tenant")
	return cmd
}
