package systemtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/proctorhq/proctor/bench/flow"
	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/storage/gormstore/storetest"
)

// recoveryBound is how soon after the database returns the service must answer normally: a
// bound of minutes, so that a busy machine cannot fail it; the time it took is logged
// (docs/reliability.md), not asserted.
const recoveryBound = 2 * time.Minute

// knownOutageGaps names the outage checks that fail today, each with what the server does
// instead. A check listed here still runs; if it fails, its subtest is skipped with the gap and
// what was observed; if it passes, the entry should be removed. Empty: every check holds.
var knownOutageGaps = map[string]string{}

// TestDatabaseOutage puts a TCP proxy between the server and PostgreSQL, cuts it, checks the
// answers of every kind of endpoint, then restores it on the same port and waits for the
// service to recover.
func TestDatabaseOutage(t *testing.T) {
	needPostgres(t)
	ctx := t.Context()
	target := postgresTarget(t)
	proxy := newTCPProxy(target)
	must(t, proxy.up())
	t.Cleanup(proxy.cut)

	public := reserveAddr(t)
	d := newDeployment(t, public, func(dsn string) string { return viaProxy(t, dsn, proxy.addr) })
	R, s, _ := d.serveAlone(true)

	b := newBrowser(s)
	c := b.at(R)
	if err := c.login(ctx); err != nil {
		t.Fatal(err)
	}
	member, err := c.Grant(ctx)
	if err != nil {
		t.Fatal(err)
	}
	op := flow.NewPKCE()
	opCode, err := c.AuthorizeClient(ctx, s.operatorClientID, operatorScope, op)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.TokenRequest(ctx, c.ExchangeForm(s.operatorClientID, opCode, op))
	must(t, err)
	operator, err := flow.ParseTokens("operator code exchange", resp)
	must(t, err)
	// A code minted before the outage, exchanged during it (refused) and after it (accepted).
	pending := flow.NewPKCE()
	pendingCode, err := c.Authorize(ctx, pending)
	must(t, err)

	probes := outageProbes(c, s, member, operator, R)
	for _, p := range probes {
		if p.normal == nil {
			continue
		}
		if err := p.normal(ctx); err != nil {
			t.Fatalf("before the outage, %s: %v", p.name, err)
		}
	}

	proxy.cut()
	t.Logf("database cut off (proxy %s closed)", proxy.addr)

	leaks := append([]string{proxy.addr, target}, leakMarkers...)
	t.Run("outage", func(t *testing.T) {
		pendingExchange := probe{
			name: "token endpoint, authorization_code grant", path: endpoint.Token, want503: true, oauthJSON: true,
			send: func(ctx context.Context) (flow.Response, error) {
				return c.TokenRequest(ctx, c.ExchangeForm(s.clientID, pendingCode, pending))
			},
		}
		for _, p := range append(probes, pendingExchange) {
			t.Run(p.name, func(t *testing.T) {
				chk := &gapCheck{t: t}
				resp, err := p.send(ctx)
				if err != nil {
					t.Fatalf("%s %s: %v", p.name, p.path, err)
				}
				chk.outageAnswer(p, resp, leaks)
				chk.finish(knownOutageGaps[p.name])
			})
		}
	})

	must(t, proxy.up())
	restored := time.Now()
	t.Logf("database reachable again on %s", proxy.addr)

	t.Run("recovery", func(t *testing.T) {
		recovery := append(probes, probe{
			name: "token endpoint, authorization_code grant",
			normal: func(ctx context.Context) error {
				resp, err := c.TokenRequest(ctx, c.ExchangeForm(s.clientID, pendingCode, pending))
				return wantTokens("the code minted before the outage", resp, err)
			},
		})
		pendingNames := map[string]bool{}
		for _, p := range recovery {
			if p.normal != nil {
				pendingNames[p.name] = true
			}
		}
		lastErr := map[string]error{}
		ok, took := poll(recoveryBound, pollEvery, func() bool {
			for _, p := range recovery {
				if !pendingNames[p.name] {
					continue
				}
				pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
				err := p.normal(pctx)
				cancel()
				if err != nil {
					lastErr[p.name] = err
					if errors.Is(err, errServerError) {
						t.Errorf("%s while the database came back: %v", p.name, err)
					}
					continue
				}
				delete(pendingNames, p.name)
			}
			return len(pendingNames) == 0
		})
		if !ok {
			for name := range pendingNames {
				t.Errorf("%s after the database came back: not normal within %s: %v", name, recoveryBound, lastErr[name])
			}
			return
		}
		t.Logf("every endpoint answered normally %s after the database came back (polling took %s)",
			time.Since(restored).Round(time.Millisecond), took.Round(time.Millisecond))
	})
}

// probe is one request of the outage test: what it sends, what it answers during the outage,
// and (normal) what it answers when the database is there.
type probe struct {
	name string
	path string
	send func(ctx context.Context) (flow.Response, error)
	// want503: during the outage the answer must be 503; otherwise any status but a 5xx other
	// than 503 is accepted (the endpoint may answer from what it holds in memory).
	want503 bool
	// oauthJSON: the 503 must be an RFC 6749 JSON error, "temporarily_unavailable".
	oauthJSON bool
	// noChallenge: the 503 must carry no WWW-Authenticate (a client would otherwise throw the
	// token away and authorize again).
	noChallenge bool
	// normal checks the endpoint's ordinary answer; nil for probes only sent during the outage.
	normal func(ctx context.Context) error
}

// outageProbes are the requests sent during the outage. member and operator are live tokens
// obtained before it.
func outageProbes(c *at, s *site, member, operator flow.Tokens, r *replica) []probe {
	internal := &flow.Client{
		HTTP:   &http.Client{Timeout: requestTimeout, Transport: &http.Transport{DisableKeepAlives: true}},
		Origin: "http://" + r.internal,
	}
	readyz := func(ctx context.Context) (flow.Response, error) {
		return internal.Get(ctx, internal.URL("/readyz"), nil)
	}
	graphql := func(ctx context.Context) (flow.Response, error) {
		body, _ := json.Marshal(map[string]string{"query": "{ viewer { id } }"})
		return c.Post(ctx, c.URL(endpoint.MemberGraphQL), "application/json", body, flow.Bearer(member.AccessToken))
	}
	mcpInit := func(token string) func(ctx context.Context) (flow.Response, error) {
		return func(ctx context.Context) (flow.Response, error) {
			body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
				"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
				"clientInfo": map[string]any{"name": "proctor-systemtest", "version": "1"},
			}})
			h := http.Header{"Accept": {"application/json, text/event-stream"}}
			if token != "" {
				h.Set("Authorization", "Bearer "+token)
			}
			return c.Post(ctx, c.URL("/mcp"), "application/json", body, h)
		}
	}
	mcpAnonymousCall := func(ctx context.Context) (flow.Response, error) {
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call",
			"params": map[string]any{"name": "list_courses", "arguments": map[string]any{}}})
		return c.Post(ctx, c.URL("/mcp"), "application/json", body, http.Header{
			"Accept": {"application/json, text/event-stream"}, "Mcp-Protocol-Version": {"2025-06-18"},
		})
	}
	restSchool := func(ctx context.Context) (flow.Response, error) {
		return c.Get(ctx, c.URL("/api/v1/school"), flow.Bearer(operator.AccessToken))
	}
	refresh := func(ctx context.Context) (flow.Response, error) {
		return c.TokenRequest(ctx, c.RefreshForm(s.clientID, member.RefreshToken))
	}
	userinfo := func(ctx context.Context) (flow.Response, error) { return c.Userinfo(ctx, member.AccessToken) }
	expect := func(what string, send func(ctx context.Context) (flow.Response, error), status int) func(ctx context.Context) error {
		return func(ctx context.Context) error {
			resp, err := send(ctx)
			if err != nil {
				return err
			}
			if resp.Status != status {
				return answerError(what, resp, status)
			}
			return nil
		}
	}
	return []probe{
		{name: "token endpoint, refresh_token grant", path: endpoint.Token, send: refresh, want503: true, oauthJSON: true,
			normal: func(ctx context.Context) error {
				resp, err := refresh(ctx)
				return wantTokens("refresh", resp, err)
			}},
		{name: "mcp with a bearer token", path: "/mcp", send: mcpInit(member.AccessToken), want503: true, oauthJSON: true, noChallenge: true,
			normal: expect("POST /mcp initialize", mcpInit(member.AccessToken), http.StatusOK)},
		{name: "member api", path: endpoint.MemberGraphQL, send: graphql, want503: true, noChallenge: true,
			normal: expect("POST "+endpoint.MemberGraphQL, graphql, http.StatusOK)},
		{name: "rest api", path: "/api/v1/school", send: restSchool, want503: true, noChallenge: true,
			normal: expect("GET /api/v1/school", restSchool, http.StatusOK)},
		{name: "readyz", path: "/readyz", send: readyz, want503: true,
			normal: expect("GET /readyz", readyz, http.StatusOK)},
		{name: "userinfo", path: endpoint.Userinfo, send: userinfo, want503: true, oauthJSON: true, noChallenge: true,
			normal: expect("GET "+endpoint.Userinfo, userinfo, http.StatusOK)},
		// The rest must not answer 500 or leak, whatever they can still serve.
		{name: "revoke", path: endpoint.Revoke, send: func(ctx context.Context) (flow.Response, error) {
			return c.Revoke(ctx, flow.RandomString(30), "refresh_token")
		}},
		{name: "consent page", path: endpoint.Authorize, send: func(ctx context.Context) (flow.Response, error) {
			_, page, err := c.ConsentPage(ctx, s.clientID, memberScopes, flow.NewPKCE(), flow.RandomString(12))
			return page, err
		}},
		{name: "login form post", path: "/login", want503: true, send: func(ctx context.Context) (flow.Response, error) {
			// A browser without a session: the form is served from memory, the post needs the
			// database (the member, the session row).
			fresh := newBrowser(s).at(r)
			page, err := fresh.Get(ctx, fresh.URL("/login"), nil)
			if err != nil || page.Status != http.StatusOK {
				return page, err
			}
			f, err := flow.FormWith(fresh.URL("/login"), page.Body, "csrf_token")
			if err != nil {
				return page, err
			}
			f.Values.Set("email", memberEmail)
			f.Values.Set("password", s.password)
			return fresh.PostForm(ctx, f.Action, f.Values)
		}},
		{name: "jwks", path: endpoint.JWKS, send: func(ctx context.Context) (flow.Response, error) {
			return c.Get(ctx, c.URL(endpoint.JWKS), nil)
		}},
		{name: "openid configuration", path: "/.well-known/openid-configuration", send: func(ctx context.Context) (flow.Response, error) {
			return c.Get(ctx, c.URL("/.well-known/openid-configuration"), nil)
		}},
		{name: "mcp anonymous", path: "/mcp", send: mcpAnonymousCall},
	}
}

// errServerError marks an answer with a 5xx status other than 503.
var errServerError = errors.New("server error")

// wantTokens checks the answer to a token request: a success that carries tokens.
func wantTokens(what string, resp flow.Response, err error) error {
	if err != nil {
		return err
	}
	if resp.Status != http.StatusOK {
		return answerError(what, resp, http.StatusOK)
	}
	_, err = flow.ParseTokens(what, resp)
	return err
}

// answerError describes an answer that is not the wanted one; a 5xx other than 503 wraps
// errServerError.
func answerError(what string, resp flow.Response, want int) error {
	if resp.Status >= 500 && resp.Status != http.StatusServiceUnavailable {
		return fmt.Errorf("%s: %w: %s, want %d", what, errServerError, resp, want)
	}
	return fmt.Errorf("%s: %s, want %d", what, resp, want)
}

// leakMarkers are pieces of text that belong in a server log, never in an answer: stack
// traces, SQL and driver or network detail.
var leakMarkers = []string{
	"goroutine ", "panic", ".go:", "runtime/", "SELECT ", "INSERT ", "UPDATE ", "DELETE ", " FROM ",
	"SQLSTATE", "pgconn", "pgx", "gorm", "dial tcp", "connection refused", "search_path", "postgres",
}

// gapCheck collects the problems of one subtest, so that a known gap can be reported as a skip
// naming what was observed.
type gapCheck struct {
	t        *testing.T
	problems []string
}

func (c *gapCheck) errorf(format string, args ...any) {
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
}

// finish fails the test with the problems, or skips it naming gap when gap is known.
func (c *gapCheck) finish(gap string) {
	c.t.Helper()
	if len(c.problems) == 0 {
		if gap != "" {
			c.t.Logf("known gap %q no longer shows: remove it from knownOutageGaps", gap)
		}
		return
	}
	if gap != "" {
		c.t.Skipf("known gap: %s; observed: %s", gap, strings.Join(c.problems, "; "))
	}
	for _, p := range c.problems {
		c.t.Error(p)
	}
}

// outageAnswer checks one answer given while the database is away.
func (c *gapCheck) outageAnswer(p probe, resp flow.Response, leaks []string) {
	c.t.Logf("%s %s during the outage: %s", p.name, p.path, resp)
	switch {
	case resp.Status == http.StatusInternalServerError:
		c.errorf("%s: 500 during the outage: %s", p.path, resp)
	case p.want503 && resp.Status != http.StatusServiceUnavailable:
		c.errorf("%s: %s, want 503", p.path, resp)
	case resp.Status >= 500 && resp.Status != http.StatusServiceUnavailable:
		c.errorf("%s: %s, want 503 or an answer from memory", p.path, resp)
	}
	if p.oauthJSON && resp.Status == http.StatusServiceUnavailable {
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			c.errorf("%s: Content-Type %q, want application/json", p.path, ct)
		}
		if e := resp.OAuthError(); e != "temporarily_unavailable" {
			c.errorf("%s: error %q, want temporarily_unavailable: %s", p.path, e, resp)
		}
	}
	if p.noChallenge {
		if h := resp.Header.Get("WWW-Authenticate"); h != "" {
			c.errorf("%s: WWW-Authenticate %q during the outage: the client would drop a good token", p.path, h)
		}
	}
	body := string(resp.Body)
	for _, m := range leaks {
		if strings.Contains(body, m) {
			c.errorf("%s: the body contains %q: %s", p.path, m, resp)
		}
	}
}

// postgresTarget is the host:port of PROCTOR_TEST_POSTGRES_DSN, which the proxy forwards to.
// It must be a loopback TCP address.
func postgresTarget(t *testing.T) string {
	t.Helper()
	pc, err := pgconn.ParseConfig(os.Getenv(storetest.PostgresDSNEnv))
	if err != nil {
		t.Fatalf("%s: %v", storetest.PostgresDSNEnv, err)
	}
	host := pc.Host
	if strings.HasPrefix(host, "/") {
		t.Skipf("%s uses a Unix socket; the outage test proxies TCP", storetest.PostgresDSNEnv)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		t.Skipf("%s names %s; the outage test only proxies to loopback addresses", storetest.PostgresDSNEnv, host)
	}
	return net.JoinHostPort(host, fmt.Sprint(pc.Port))
}

// viaProxy rewrites a DSN to connect to proxyAddr instead of its host and port.
func viaProxy(t *testing.T, dsn, proxyAddr string) string {
	t.Helper()
	host, port, err := net.SplitHostPort(proxyAddr)
	must(t, err)
	if strings.Contains(dsn, "://") {
		u, err := url.Parse(dsn)
		must(t, err)
		u.Host = proxyAddr
		return u.String()
	}
	// key=value form: a later key wins.
	return dsn + " host=" + host + " port=" + port
}
