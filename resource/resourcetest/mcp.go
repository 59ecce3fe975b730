package resourcetest

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BearerClient is an HTTP client for an MCP session that sends token with every request (none
// if ""). Its timeout only keeps a broken server from hanging the test: a minute, as
// servertest's clients have, since a busy machine running the race detector may answer in
// seconds.
func BearerClient(token string) *http.Client {
	c := &http.Client{Timeout: time.Minute}
	if token != "" {
		c.Transport = bearer{token: token, next: http.DefaultTransport}
	}
	return c
}

// bearer adds a token to every request of an MCP client.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// Connect opens the Go SDK's MCP client session through tr (its Endpoint a school's /mcp, its
// HTTPClient a BearerClient or its OAuthHandler one that authorizes) in the protocol revision
// given ("" for the SDK's latest), and closes it when the test ends. The standalone SSE stream
// is off: the tests only read the answers to their own requests.
func Connect(t testing.TB, tr *mcp.StreamableClientTransport, version string) *mcp.ClientSession {
	t.Helper()
	tr.DisableStandaloneSSE = true
	client := mcp.NewClient(&mcp.Implementation{Name: "proctor-test", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect to %s (protocol %q): %v", tr.Endpoint, version, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// ToolNames lists the tools an MCP session sees, in the order the server lists them.
func ToolNames(t testing.TB, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

// CallTool calls a tool with args (none if nil) and decodes its structured result into out
// (when not nil). It fails the test on a protocol error; a tool error is returned as the
// result's text.
func CallTool(t testing.TB, cs *mcp.ClientSession, name string, args map[string]any, out any) (toolErr string) {
	t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		var texts []string
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				texts = append(texts, tc.Text)
			}
		}
		return strings.Join(texts, "\n")
	}
	if out != nil {
		raw, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s: structured content %s: %v", name, raw, err)
		}
	}
	return ""
}
