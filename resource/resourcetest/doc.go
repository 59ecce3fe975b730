// Package resourcetest is the test environment of the resource servers that a client reaches
// over HTTP with a bearer token (the Member API and /mcp): a whole Proctor on schools A and B,
// access tokens minted into its store, raw requests to it (Send: servertest.SendBearer, the one
// way the tests send a token), and the Go SDK's MCP client session at a school's /mcp (Connect,
// with a BearerClient or an OAuth handler) with the tools it lists and calls (for /mcp's tests
// and the authorization flows that end at /mcp).
// Each package's tests add what their protocol needs (GraphQL answers, MCP sessions) on top;
// what a surface publishes (its schema, its tool list) is compared with its reviewed copy by
// schools.Golden.
package resourcetest
