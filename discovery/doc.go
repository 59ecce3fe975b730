// Package discovery serves each school's machine-readable documents.
//
// Routes (public listener, per school):
//
//	GET /.well-known/oauth-authorization-server         RFC 8414 metadata
//	GET /.well-known/openid-configuration               OpenID Connect discovery
//	GET /.well-known/oauth-protected-resource           RFC 9728 metadata for the origin
//	GET /.well-known/oauth-protected-resource/mcp       ... for {base_url}/mcp
//	GET /.well-known/oauth-protected-resource/member/graphql
//	GET /auth.md                                        authentication walkthrough (Markdown)
//	GET /llms.txt                                       index of the site in the llms.txt format
//	GET /pricing.md                                     published offer with prices (Markdown)
//
// The path-specific protected-resource metadata (RFC 9728 section 3.1) is what the 401
// challenges of /mcp and the Member API name; its scopes_supported is the member scopes, what a
// member client can get. The origin's lists every scope.
//
// The issuer is the school's base_url, byte for byte, and equals authorization_servers[0] of
// the protected-resource metadata: MCP clients compare the two strings. The documents are
// readable cross-origin (browser-based clients discover before they authenticate) and carry no
// credentials, so they allow any origin and may be cached briefly.
//
// The three text documents are rendered from templates (docs/*.tmpl) with the school's own URLs;
// /llms.txt and /pricing.md also read its published catalogue, completely, before the first
// byte is written, so a failing store answers 503 rather than a partial document. Prices are
// stored in the currency's minor unit and shown with its ISO 4217 exponent (FormatMoney).
package discovery
