package bench

// The resource servers' endpoints a run calls on the school's origin, as any client finds them
// (spec, Endpoints); the authorization server's come from package endpoint, a leaf. The load
// generator is a client of the server's HTTP interface and imports none of the packages that
// serve it; a path changed there fails every scenario that uses it.
const (
	memberGraphQLPath = "/member/graphql"
	mcpPath           = "/mcp"
)
