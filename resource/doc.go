// Package resource is the thin resource server's shared core: bearer-token verification, the
// door every protected surface lets requests in through, and the WWW-Authenticate challenges
// every protected endpoint answers with.
//
// The Member API, /mcp and the operator REST API each hold a Door and call Door.Authenticate
// with their Policy (anonymous allowed or not, the scopes, an operator role, when to read the
// roles): the token, a member, the scopes and the roles, read fresh on every request, are
// checked in that order in one place. A refusal comes back as a Refusal of a known kind, which
// each surface writes its own way (GraphQL, an MCP challenge, the operator API's challenges).
//
// One Verifier serves userinfo, the Member API, /mcp and the operator REST API. It checks the
// token's HMAC before touching the database (a forged or garbled token costs no query), then
// finds the token pair with one indexed lookup scoped to the request's school, and refuses a
// revoked, expired or foreign-origin token, and one whose grant names no school_id or another
// school's (read from the pair's stored session: no second query). On a pair's first use it
// commits the refresh rotation (the spec's token-pair table: the pair it replaced is revoked),
// exactly once.
//
// Errors distinguish "invalid" (401 invalid_token) from "no verdict" (the database could not be
// asked: 503, and the client may retry). A Protected resource writes the challenges: /mcp and
// the Member API point at their own path-specific metadata and name the member scopes on every
// 401, so that a client whose token died authorizes again for what it can get; the origin's
// (userinfo, the operator REST API) point at the origin's metadata.
package resource
