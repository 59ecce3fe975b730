package authz_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/resource/resourcetest"
	"github.com/proctorhq/proctor/storage"
)

// mcpSession connects the Go SDK's MCP client to school A's /mcp with transport options.
func (e *env) mcpSession(tr *mcp.StreamableClientTransport) *mcp.ClientSession {
	e.t.Helper()
	tr.Endpoint = e.url(e.a, endpoint.MCP)
	return resourcetest.Connect(e.t, tr, "")
}

// mcpCall calls a tool, which must succeed.
func mcpCall(t *testing.T, cs *mcp.ClientSession, name string) {
	t.Helper()
	if msg := resourcetest.CallTool(t, cs, name, nil, nil); msg != "" {
		t.Fatalf("%s: tool error %s", name, msg)
	}
}

// TestMCPClientAuthorization: the Go SDK's MCP client, starting anonymous, discovers the
// authorization server from /mcp's 401 when it calls a member tool, authorizes a pre-registered
// public client with PKCE and resource (the browser part played by the harness), and calls the
// tool; a write then gets 403 insufficient_scope and the client steps up to account:write.
func TestMCPClientAuthorization(t *testing.T) {
	e := newEnv(t, "sqlite")
	var asked [][]string // the scopes of each authorization the client started
	fetch := func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		b := e.signedIn(e.a, studentEmail)
		loc := b.consent(args.URL, "approve")
		q := loc.Query()
		asked = append(asked, splitScopes(args.URL))
		return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
	}
	handler, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		PreregisteredClient:      &oauthex.ClientCredentials{ClientID: publicClient},
		RedirectURL:              redirectURI,
		AuthorizationCodeFetcher: fetch,
	})
	if err != nil {
		t.Fatal(err)
	}
	cs := e.mcpSession(&mcp.StreamableClientTransport{OAuthHandler: handler})
	if got := resourcetest.ToolNames(t, cs); slices.Contains(got, "my_courses") || !slices.Contains(got, "list_courses") {
		t.Fatalf("anonymous tools: %v", got)
	}

	mcpCall(t, cs, "my_courses")
	if len(asked) != 1 || !slices.Equal(asked[0], []string{"account:read"}) {
		t.Fatalf("authorizations: %v, want one for the challenge's account:read", asked)
	}
	if got := resourcetest.ToolNames(t, cs); !slices.Contains(got, "my_payments") || slices.Contains(got, "mark_all_notifications_read") {
		t.Errorf("tools with account:read: %v", got)
	}

	mcpCall(t, cs, "mark_all_notifications_read")
	if len(asked) != 2 || !slices.Equal(asked[1], []string{"account:read", "account:write"}) {
		t.Fatalf("authorizations: %v, want a step-up adding account:write", asked)
	}
	if got := resourcetest.ToolNames(t, cs); !slices.Contains(got, "mark_all_notifications_read") {
		t.Errorf("tools after the step-up: %v", got)
	}
}

// TestMCPWithIssuedTokens: tokens from real authorizations work at /mcp, a member's for member
// tools and an owner's operator token for the operator tools of its scopes; a refreshed token's
// first use at /mcp retires the pair it replaced.
func TestMCPWithIssuedTokens(t *testing.T) {
	e := newEnv(t, "sqlite")
	tr := e.tokens("openid", "account:read")
	member := e.mcpSession(&mcp.StreamableClientTransport{HTTPClient: resourcetest.BearerClient(tr.AccessToken)})
	if got := resourcetest.ToolNames(t, member); !slices.Contains(got, "my_courses") || slices.Contains(got, "admin_list_students") {
		t.Errorf("member tools: %v", got)
	}
	mcpCall(t, member, "my_notifications")

	res, refreshed := e.Refresh(e.a, oauthClient(publicClient), tr.RefreshToken)
	if res.Status != http.StatusOK {
		t.Fatalf("refresh: %d %+v", res.Status, refreshed)
	}
	mcpCall(t, e.mcpSession(&mcp.StreamableClientTransport{HTTPClient: resourcetest.BearerClient(refreshed.AccessToken)}), "my_courses")
	if status := e.Userinfo(e.a, tr.AccessToken); status != http.StatusUnauthorized {
		t.Errorf("the replaced access token after the new one's first use at /mcp: %d", status)
	}

	// An operator application of the school, authorized by its owner.
	e.mustClient(e.a, storage.Client{ID: "ops-reports", Kind: storage.ClientOperator, Name: "Reports", TokenEndpointAuthMethod: storage.AuthMethodNone,
		RedirectURIs: []string{redirectURI}, Scopes: []string{"students:read", "orders:read", "analytics:read"}})
	code, p := e.Code(e.a, operatorEmail, oauthClient("ops-reports"), "students:read", "analytics:read")
	res, op := e.Exchange(e.a, oauthClient("ops-reports"), code, p)
	if res.Status != http.StatusOK {
		t.Fatalf("operator exchange: %d %+v", res.Status, op)
	}
	operator := e.mcpSession(&mcp.StreamableClientTransport{HTTPClient: resourcetest.BearerClient(op.AccessToken)})
	got := resourcetest.ToolNames(t, operator)
	if !slices.Contains(got, "admin_list_students") || !slices.Contains(got, "admin_analytics_summary") ||
		slices.Contains(got, "admin_list_payments") || slices.Contains(got, "my_courses") {
		t.Errorf("operator tools: %v", got)
	}
	mcpCall(t, operator, "admin_list_students")
	mcpCall(t, operator, "admin_analytics_summary")
}

// splitScopes returns the scope parameter of an authorization URL, split and sorted.
func splitScopes(authURL string) []string {
	u, err := url.Parse(authURL)
	if err != nil {
		return nil
	}
	out := strings.Fields(u.Query().Get("scope"))
	slices.Sort(out)
	return out
}
