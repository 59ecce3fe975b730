// Package resourcetest is the test environment of the resource servers that a client reaches
// over HTTP with a bearer token (the Member API and /mcp): a whole Proctor on schools A and B,
// access tokens minted into its store, raw requests to it, and the tools an MCP session lists
// and calls (for /mcp's tests and the authorization flows that end at /mcp).
// Each package's tests add what their protocol needs (GraphQL answers, MCP sessions) on top;
// what a surface publishes (its schema, its tool list) is compared with its reviewed copy by
// schools.Golden.
package resourcetest
