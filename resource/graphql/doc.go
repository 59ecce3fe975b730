// Package graphql is the Member API: POST {base_url}/member/graphql, a GraphQL endpoint over the
// signed-in member's own data at the school the access token is bound to (spec, "Member API").
//
// Routes (mounted on the public listener, per school):
//
//	POST /member/graphql   GraphQL over HTTP, JSON body {query, operationName, variables}
//
// The schema is SDL checked in as schema.graphql and compiled in with go:embed, and a golden copy
// in testdata fails the tests when the schema changes unnoticed. Introspection is on. Two
// libraries read it: graph-gophers' graphql-go validates each request (its rules, messages and
// limits are the API's, and the cost model reads its types), and the code gqlgen generates from
// it (exec_gen.go, from gqlgen.yml: `go generate ./resource/graphql`) executes what passed,
// calling the resolvers here directly. A curriculum answers thousands of fields; calling their
// resolvers by reflection, as graphql-go does, was most of its cost. Even generated, a field
// costs a few allocations, so the lists of sections and lectures are written by a writer of
// their own (curriculum.go), held by a test to what the generated code writes.
//
// A request goes through, in order: the resource door (resource.Door.Authenticate, shared with
// /mcp and the operator API; the handler writes its refusals): the bearer token
// (resource.Verifier: HMAC, token pair, origin binding, school_id; 401 invalid_token or 503
// without a verdict), a resource owner (no anonymous mode), a scope (neither account:read nor
// account:write: 403 insufficient_scope); then the body (JSON, at most 64 KiB), the query's estimated cost (cost.go) and depth, and then
// execution. From the body on, refusals are GraphQL errors with extensions.code. Scopes inside
// the query are GraphQL errors too: viewer needs account:read and the three mutations need
// account:write, and a token with only the other gets 200 with an INSUFFICIENT_SCOPE entry in
// errors, never a challenge (spec, Errors).
//
// Loading is batched without a timer: each connection reads its page in one statement and gives
// its nodes a batch that reads what they share (curricula, progress, consulting schedules) once,
// on first use, for the whole page. A request therefore costs a fixed number of statements,
// however many courses, sections, lectures or payments it returns.
//
// What is left out on purpose: the entitlement connections carry nothing of billing (payments
// rule 4), consulting meetings never say whose they are, and no field joins payment attempts into
// purchases (rule 1). docs/member-api.md describes the schema, limits and decisions for clients.
package graphql

//go:generate go run github.com/99designs/gqlgen generate --config gqlgen.yml
