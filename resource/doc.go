// Package resource will hold the thin resource server: bearer-token verification (through the
// shared store, or the internal introspection endpoint when run as its own process) and the
// WWW-Authenticate challenges; resource/graphql (the Member API) and resource/mcp (the MCP
// endpoint) will sit under it. It has no code yet.
package resource
