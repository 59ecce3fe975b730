package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/proctorhq/proctor/bench/flow"
	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/discovery"
	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/i18n"
	"github.com/proctorhq/proctor/mail/mailbox"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/scope"
	"github.com/proctorhq/proctor/seed"
	"github.com/proctorhq/proctor/seed/demo"
	"github.com/proctorhq/proctor/server"
	"github.com/proctorhq/proctor/storage"
)

func newDemoCommand() *cobra.Command {
	var addr, internalAddr, dataDir string
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run a demo with two schools and sample data on loopback (no configuration)",
		Long: `Run Proctor with an embedded SQLite database under the data directory, two demo schools
on loopback (one at 127.0.0.1, one at localhost, same port), sample courses, progress, payments
and notifications, and demo accounts whose passwords are printed at start-up. Each school has a
member client and an operator client; the banner prints an authorization URL for each, with a
PKCE verifier, and every page and API to try (docs/quickstart.md walks through them). Restarting
keeps the data; delete the data directory to start afresh.

Both listeners are opened before anything else: a port in use stops the demo with a message
saying which. Port 0 lets the system pick; the banner shows the ports chosen.

The demo only listens on loopback addresses: its passwords are public.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDemo(cmd.Context(), addr, internalAddr, dataDir, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:8080", "public listener (loopback only)")
	cmd.Flags().StringVar(&internalAddr, "internal-addr", "127.0.0.1:8081", "internal listener (loopback only)")
	cmd.Flags().StringVar(&dataDir, "data-dir", "var", "where the demo database and secret live")
	return cmd
}

func runDemo(ctx context.Context, addr, internalAddr, dataDir string, out, logOut io.Writer) (err error) {
	for _, a := range []string{addr, internalAddr} {
		host, _, err := net.SplitHostPort(a)
		if err != nil || !config.IsLoopbackHost(host) {
			return fmt.Errorf("the demo listens on loopback addresses only, got %q", a)
		}
	}
	// Both listeners open before anything is printed: a taken port is said plainly, and the
	// banner appears only when its URLs will answer. Port 0 picks a free port, which the
	// schools' URLs then carry.
	pub, err := listenDemo(addr)
	if err != nil {
		return err
	}
	defer closeUnlessServing(&err, pub)
	in, err := listenDemo(internalAddr)
	if err != nil {
		return err
	}
	defer closeUnlessServing(&err, in)
	addr, internalAddr = pub.Addr().String(), in.Addr().String()
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return err
	}
	secret, err := loadOrCreateSecret(filepath.Join(dataDir, "demo-secret"))
	if err != nil {
		return err
	}
	srv := config.DefaultServer()
	srv.Public.Addr, srv.Internal.Addr = addr, internalAddr
	srv.Database = config.Database{Driver: "sqlite", DSN: filepath.Join(dataDir, "proctor.db")}
	srv.SchoolsDir = "(built-in demo schools)"
	srv.Secret = secret
	srv.Log = config.Log{Level: "info", Format: "text"}

	// The demo's mail goes to a mailbox in the process, shown on the internal listener.
	box, err := mailbox.Start(mailbox.Options{})
	if err != nil {
		return err
	}
	defer box.Close()
	boxHost, port := box.HostPort()
	srv.Mail = config.Mail{Host: boxHost, Port: port, TLS: config.MailTLSNone, From: "noreply@localhost", Timeout: config.DefaultMailTimeout}

	schools := demo.Schools(addr)
	cfg := &config.Config{Server: srv}
	for i, s := range schools {
		t := config.DefaultSchool()
		t.File = "demo:" + s.Subdomain
		t.SchoolID, t.Subdomain, t.Name, t.BaseURL = s.SchoolID, s.Subdomain, s.Name, s.BaseURL
		t.Locale, t.TimeZone = s.Locale, s.TimeZone
		// The first school shows ID tokens switched on, the second shows a school without them.
		t.Features = config.Features{MCPConnections: true, IDTokens: i == 0}
		cfg.Schools = append(cfg.Schools, t)
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	reg, err := buildRegistry(cfg.Schools)
	if err != nil {
		return err
	}
	a, err := openStore(ctx, cfg, reg, newLogger(srv.Log, logOut))
	if err != nil {
		return err
	}
	defer a.close()
	if _, err := a.store.Migrate(ctx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if err := a.syncSchools(ctx); err != nil {
		return err
	}
	for _, s := range schools {
		t, _ := reg.BySchoolID(s.SchoolID)
		if err := seedDemoSchool(ctx, a, t, s); err != nil {
			return fmt.Errorf("seed %s: %w", s.Subdomain, err)
		}
		if err := ensureDemoClients(ctx, a, t); err != nil {
			return fmt.Errorf("demo clients of %s: %w", s.Subdomain, err)
		}
	}
	srvr, err := server.New(server.Deps{Config: srv, Schools: reg, Store: a.store, Logger: a.log, MailboxHandler: box.Handler()})
	if err != nil {
		return err
	}
	printDemoBanner(out, reg, internalAddr, srv.Database.DSN, newDemoPKCE())
	return srvr.Serve(ctx, pub, in)
}

// listenDemo opens one of the demo's listeners; a port in use gets an answer that says which
// and what to do.
func listenDemo(addr string) (net.Listener, error) {
	l, err := net.Listen("tcp", addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		_, port, _ := net.SplitHostPort(addr)
		// Another pair of ports to suggest, away from this one and the one beside it.
		alt, _ := strconv.Atoi(port)
		if alt += 100; alt <= 100 || alt > 65000 {
			alt = 9090
		}
		return nil, fmt.Errorf("port %s is already in use (%s), so the demo cannot start there: stop the program using it "+
			"(an earlier demo?), or run the demo on other ports, e.g. `make run PORT=%d` "+
			"(`proctor demo --addr 127.0.0.1:%d --internal-addr 127.0.0.1:%d`): %w", port, addr, alt, alt, alt+1, err)
	}
	return l, err
}

// closeUnlessServing closes l when the demo stops before serving (*err set); once serving,
// the server closes its listeners itself.
func closeUnlessServing(err *error, l net.Listener) {
	if *err != nil {
		l.Close()
	}
}

// seedDemoSchool loads the school's fixture the first time only, so that what a visitor
// changes during the demo survives a restart.
func seedDemoSchool(ctx context.Context, a *app, t *school.School, s demo.School) error {
	sctx := school.NewContext(ctx, t)
	members, _, err := a.store.ListSchoolMembers(sctx, storage.Page{First: 1})
	if err != nil || len(members) > 0 {
		return err
	}
	// Dates in the fixture move with today's date, so upcoming events and payment deadlines
	// stay upcoming however old the binary is.
	fx, err := s.Load(time.Now())
	if err != nil {
		return err
	}
	_, err = fx.Apply(sctx, a.store, seed.Options{})
	return err
}

// demoRedirectURI is the demo clients' redirect URI; a loopback URI matches any port, so any
// local tool can receive the code.
const demoRedirectURI = "http://127.0.0.1/callback"

// demoClient is one of the public clients (PKCE, no secret) every demo school has.
type demoClient struct {
	// suffix follows "demo-<subdomain>" in the client_id.
	suffix, name string
	kind         storage.ClientKind
	// scopes are what the client may hold; ask is what the banner's authorization URL asks for.
	scopes, ask []string
	// who may approve its authorization.
	who string
}

// demoClients are the member client (the Member API, member MCP tools) and the operator client
// (the operator REST API, operator MCP tools): operator scopes are refused to a member client,
// so one client cannot show both.
var demoClients = []demoClient{
	{suffix: "", name: "Demo App", kind: storage.ClientMember,
		scopes: scope.NamesFor(scope.Identity, scope.Member),
		ask:    []string{scope.OpenID, scope.Profile, scope.Email, "account:read", "account:write"},
		who:    "any demo account of the school"},
	{suffix: "-operator", name: "Demo Operator Console", kind: storage.ClientOperator,
		scopes: scope.NamesFor(scope.Identity, scope.Operator),
		ask:    []string{scope.OpenID, scope.Profile, "courses:read", "students:read", "orders:read", "analytics:read", "members:read"},
		who:    "the school's owner or admin"},
}

func (c demoClient) id(t *school.School) string { return "demo-" + t.Subdomain + c.suffix }

// authorizeURL is an authorization request for the client at school t, with this run's PKCE
// challenge.
func (c demoClient) authorizeURL(t *school.School, p demoPKCE) string {
	q := flow.AuthorizeQuery(t.Origin, c.id(t), demoRedirectURI, strings.Join(c.ask, " "), p.state, "", p.PKCE)
	return t.URL(endpoint.Authorize) + "?" + q.Encode()
}

// demoPKCE is the PKCE pair (and state) of the banner's authorization URLs, new every run; the
// pair is made as every client of Proctor's own (the load command, the tests) makes it.
type demoPKCE struct {
	flow.PKCE
	state string
}

func newDemoPKCE() demoPKCE { return demoPKCE{PKCE: flow.NewPKCE(), state: flow.RandomString(12)} }

// ensureDemoClients creates school t's demo clients the first time.
func ensureDemoClients(ctx context.Context, a *app, t *school.School) error {
	sctx := school.NewContext(ctx, t)
	for _, c := range demoClients {
		_, err := a.store.GetClient(sctx, c.id(t))
		if !errors.Is(err, storage.ErrNotFound) {
			if err != nil {
				return err
			}
			continue
		}
		_, err = a.store.CreateClient(sctx, storage.Client{
			ID: c.id(t), Kind: c.kind, Name: c.name, ApplicationType: "native",
			TokenEndpointAuthMethod: storage.AuthMethodNone, RedirectURIs: []string{demoRedirectURI},
			Scopes: c.scopes,
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// loadOrCreateSecret keeps the demo's system secret in a file of its own, so that a restart
// can still read what was encrypted or keyed with it.
func loadOrCreateSecret(path string) (config.Secret, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		raw := make([]byte, 32)
		if _, err := rand.Read(raw); err != nil {
			return nil, err
		}
		enc := base64.StdEncoding.EncodeToString(raw)
		if err := os.WriteFile(path, []byte(enc+"\n"), 0o600); err != nil {
			return nil, err
		}
		return config.Secret(raw), nil
	}
	if err != nil {
		return nil, err
	}
	return config.DecodeSecret(string(b))
}

func printDemoBanner(w io.Writer, reg *school.Registry, internalAddr, dbPath string, p demoPKCE) {
	fmt.Fprintln(w, "")
	fmt.Fprintln(w, "Proctor demo is running. Press Ctrl-C to stop. A walk-through: docs/quickstart.md")
	fmt.Fprintln(w, "")
	for _, t := range reg.All() {
		fmt.Fprintf(w, "  %s (school_id %d, subdomain %s)\n", t.Name, t.SchoolID, t.Subdomain)
		fmt.Fprintf(w, "    issuer:     %s\n", t.Origin)
		fmt.Fprintf(w, "    guide:      %s (how to authenticate, for people and agents)\n", t.URL(discovery.AuthDocPath))
		fmt.Fprintf(w, "    discovery:  %s\n", t.URL(endpoint.ServerMetadata))
		fmt.Fprintf(w, "    resource:   %s\n", t.URL(endpoint.ProtectedResourceMetadata))
		fmt.Fprintf(w, "    id tokens:  %t\n", t.Features.IDTokens)
		fmt.Fprintf(w, "    pages:      in %s unless the browser asks for another of %s (switcher on every page); dates in %s\n",
			t.Locale, strings.Join(i18n.Tags(), ", "), t.Location)
		fmt.Fprintf(w, "    apis:       %s (GraphQL), %s (MCP), %s (REST; every route in %s)\n",
			t.URL(endpoint.MemberGraphQL), t.URL(endpoint.MCP), t.URL("/api/v1/courses"), t.URL(endpoint.OpenAPI))
		for _, c := range demoClients {
			fmt.Fprintf(w, "    client:     %s (%s, public, PKCE S256; approved by %s)\n", c.id(t), c.kind, c.who)
			fmt.Fprintf(w, "      sign in:  %s\n", c.authorizeURL(t, p))
		}
		fmt.Fprintf(w, "      token:    curl -s %s -d grant_type=authorization_code -d client_id=CLIENT_ID -d code=CODE -d code_verifier=%s -d redirect_uri=%s -d resource=%s\n",
			t.URL(endpoint.Token), p.Verifier, demoRedirectURI, t.Origin)
		fmt.Fprintf(w, "    account:    %s (a member's own page; \"Forgot password?\" is on %s)\n", t.URL("/account"), t.URL("/login"))
		fmt.Fprintf(w, "    security:   %s (second factors) and %s (passkeys, at a host name only)\n", t.URL("/account/security"), t.URL("/account/passkeys"))
		fmt.Fprintf(w, "    admin:      %s, %s and %s (owners and admins)\n",
			t.URL("/admin/members"), t.URL("/admin/security-events"), t.URL("/admin/developers/oauth-applications"))
	}
	fmt.Fprintln(w, "")
	fmt.Fprintf(w, "  The sign-in URLs carry this run's PKCE challenge; its code_verifier is %s.\n", p.Verifier)
	fmt.Fprintf(w, "  After \"Approve\" the browser goes to %s?code=CODE&... (nothing listens there):\n", demoRedirectURI)
	fmt.Fprintln(w, "  copy CODE from the address bar into the school's token line within a minute, with the client's id.")
	fmt.Fprintln(w, "")
	fmt.Fprintln(w, "  Demo accounts (demo only; these passwords are public):")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, acc := range demo.Accounts() {
		fmt.Fprintf(tw, "    %s\t%s\t%s\t%s\n", acc.SchoolSubdomain, acc.Role, acc.Email, acc.Password)
	}
	tw.Flush()
	fmt.Fprintln(w, "")
	fmt.Fprintf(w, "  internal:   http://%s/healthz  /readyz  /metrics\n", internalAddr)
	fmt.Fprintf(w, "  mailbox:    http://%s/mail (every e-mail the demo sends)\n", internalAddr)
	fmt.Fprintf(w, "  database:   %s (delete the data directory to start afresh)\n", dbPath)
	fmt.Fprintln(w, "")
}
