package resourcetest

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

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
