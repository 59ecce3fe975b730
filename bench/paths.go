package bench

// The endpoints a run calls on the school's origin, as any client finds them (spec,
// Endpoints). The load generator is a client of the server's HTTP interface and imports none of
// the packages that serve it; a path changed there fails every scenario that uses it.
const (
	authorizePath     = "/oauth/authorize"
	tokenPath         = "/api/oauth/token"
	revokePath        = "/api/oauth/revoke"
	userinfoPath      = "/api/oauth/userinfo"
	memberGraphQLPath = "/member/graphql"
	mcpPath           = "/mcp"
)
