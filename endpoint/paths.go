package endpoint

// Paths of the authorization server's endpoints (spec, Authorization server table).
const (
	Authorize = "/oauth/authorize"
	Token     = "/api/oauth/token"
	Revoke    = "/api/oauth/revoke"
	Userinfo  = "/api/oauth/userinfo"
	Register  = "/api/oauth/register"
	JWKS      = "/.well-known/jwks.json"
)

// Paths of the authorization server's metadata: RFC 8414 and OpenID Connect Discovery 1.0 serve
// the same document.
const (
	ServerMetadata      = "/.well-known/oauth-authorization-server"
	OpenIDConfiguration = "/.well-known/openid-configuration"
)

// Paths of the resource servers and the documents that describe them at each school's origin.
const (
	// ProtectedResourceMetadata is the origin's protected-resource metadata (RFC 9728); a
	// resource's own lives at this path followed by the resource's path.
	ProtectedResourceMetadata = "/.well-known/oauth-protected-resource"
	MemberGraphQL             = "/member/graphql"
	MCP                       = "/mcp"
	// OpenAPI describes the operator REST API (spec, "Machine-readable").
	OpenAPI = "/openapi.json"
)
