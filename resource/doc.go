// Package resource is the thin resource server's shared core: the Verifier interface and the
// Grant it returns, the door every protected surface lets requests in through, and the WWW-Authenticate challenges
// every protected endpoint answers with.
//
// The Member API, /mcp and the operator REST API each hold a Door and call Door.Authenticate
// with their Policy (anonymous allowed or not, the scopes, an operator role, when to read the
// roles): the token, a member, the scopes and the roles, read fresh on every request, are
// checked in that order in one place. A refusal comes back as a Refusal of a known kind, which
// each surface writes its own way (GraphQL, an MCP challenge, the operator API's challenges).
// A Verifier that is also a VerdictObserver is told each verdict (ok, anonymous, or the
// refusal's kind): the server counts them by surface without this package knowing of metrics.
//
// One Verifier serves userinfo, the Member API, /mcp and the operator REST API: the one of package
// resource/verifier, which reads the shared database, or a RemoteVerifier, which asks the
// authorization server's internal introspection endpoint.
//
// Errors distinguish "invalid" (401 invalid_token) from "no verdict" (the database could not be
// asked: 503, and the client may retry). A Protected resource writes the challenges: /mcp and
// the Member API point at their own path-specific metadata and name the member scopes on every
// 401, so that a client whose token died authorizes again for what it can get; the origin's
// (userinfo, the operator REST API) point at the origin's metadata.
//
// SubscriptionGrid is the one shape of a member's notification choices that the Member API and
// /mcp both answer with.
package resource
