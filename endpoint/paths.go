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
