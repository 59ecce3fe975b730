// Package authz is Proctor's OAuth 2.0 / OpenID Connect authorization server on ory/fosite.
//
// Routes (public listener, per school):
//
//	GET, POST /oauth/authorize      authorization code flow: login, consent, code (RFC 6749, 7636, 9207)
//	POST      /api/oauth/token      code exchange and refresh (RFC 6749 section 4.1.3, 6)
//	POST      /api/oauth/revoke     revocation (RFC 7009)
//	GET, POST /api/oauth/userinfo   OpenID Connect UserInfo
//	POST      /api/oauth/register   vendor-integration registration (RFC 7591 shape; not open)
//
// One fosite provider serves every school; its configuration getters read the school from the
// request context (issuer, lifetimes). Only the authorization-code grant with PKCE S256 and the
// refresh grant are composed. Storage goes through an adapter (storage.go) onto the narrow Store
// this package declares (store.go): codes and tokens are kept only as HMAC signatures, and an
// access token and its refresh token are one row with one revocation stamp. The adapter answers
// fosite's many storage calls within a request from one read and writes once, when fosite
// commits (unit.go): a code exchange or a refresh is three statements on PostgreSQL. A refresh revokes
// nothing; the first use of the new access token at an API (package resource/verifier) retires
// the pair it replaced and any other pair minted from that one (a fork). That rule, and a
// refresh's scope, which may narrow the grant, are in refresh.go; repeated parameters are refused
// and redirect URIs match as registered, the loopback port aside (params.go).
//
// Clients come from three places (clientsource.go): the school's stored clients (created by its
// operators: admin, proctor clients), the deployment's vendor integrations (server file;
// POST /api/oauth/register answers their ids and stores nothing), and Client ID Metadata
// Documents, fetched by package authz/cimd when the client_id is an https URL.
//
// Errors are normalised to the codes of RFC 6749 section 5.2 (plus invalid_target, RFC 8707,
// and temporarily_unavailable when the database cannot be reached) with no debug detail.
// Authorization errors are redirected to the client with error, error_description, state and
// iss only once the client and redirect URI are known to be valid; before that they are shown
// on an HTML page.
package authz
