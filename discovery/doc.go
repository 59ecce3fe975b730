// Package discovery serves each school's machine-readable documents.
//
// Routes (public listener, per tenant):
//
//	GET /.well-known/oauth-authorization-server         RFC 8414 metadata
//	GET /.well-known/openid-configuration               OpenID Connect discovery
//	GET /.well-known/oauth-protected-resource           RFC 9728 metadata for the origin
//	GET /.well-known/oauth-protected-resource/mcp       ... for {base_url}/mcp
//	GET /.well-known/oauth-protected-resource/member/graphql
//
// The issuer is the school's base_url, byte for byte, and equals authorization_servers[0] of
// the protected-resource metadata: MCP clients compare the two strings. The documents are
// readable cross-origin (browser-based clients discover before they authenticate) and carry no
// credentials, so they allow any origin and may be cached briefly.
package discovery
