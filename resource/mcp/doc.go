// Package mcp is the MCP endpoint: {base_url}/mcp, a Model Context Protocol server over
// Streamable HTTP for one school's catalogue and, with a token, one member's own data or the
// school's operator reports (spec, Endpoints: MCP).
//
// Routes (mounted on the public listener, per school):
//
//	POST   /mcp   JSON-RPC requests; answers are JSON (no event streams)
//	GET    /mcp   405 (no server-initiated stream: the server is stateless)
//	DELETE /mcp   405 (no sessions to end)
//
// It is built on the official Go SDK (github.com/modelcontextprotocol/go-sdk) in stateless mode
// with JSON responses, which serves the revisions 2025-06-18, 2025-11-25 (initialize handshake,
// no session kept) and 2026-07-28 (no handshake). Every request is answered by a server holding
// exactly the tools its caller may call (shared by the callers of the same set, server.go), so
// tools/list differs by token:
//
//   - no Authorization header: the public tools (the published catalogue and pricing);
//   - a member token: the public tools, the member tools its account:read / account:write allow;
//   - a token with an operator scope whose member is an owner or admin at the school now: the
//     operator tools of its scopes too.
//
// A request goes through, in order: the school (resolved from Host by the server), the Origin
// header (present and not the school's origin: 403, against DNS rebinding and cross-site
// requests), the resource door (resource.Door.Authenticate, shared with the Member API and the
// operator API): the bearer token (resource.Verifier: 401 invalid_token with the metadata
// pointer, 401 for a token bound to no user, 503 temporarily_unavailable without a challenge when
// no verdict can be reached) and, for a token with an operator scope, the member's roles; then
// the body (at most 64 KiB), and the tools a tools/call names: a tool
// the caller may not call is answered before the SDK sees the request, 401 with a challenge
// naming its scope for an anonymous caller and 403 insufficient_scope naming it for a token
// without it, so that an MCP client can authorize or step up. Every 401 names /mcp's own metadata
// and a scope (the tool's, else the member scopes). Everything after that is the SDK's: JSON-RPC
// errors for malformed requests, unknown tools and the methods of capabilities not declared
// (only tools is: prompts, resources, logging and completion answer method not found), and tool
// errors (isError results) for bad arguments, in a sentence naming the argument (arguments.go),
// and failed reads.
//
// docs/mcp.md lists the tools with their schemas; testdata/tools.golden.json holds tools/list
// per audience.
package mcp
