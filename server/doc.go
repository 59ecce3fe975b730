// Package server composes Proctor's two HTTP listeners and is the one place where every
// handler is mounted.
//
// Public listener (default 127.0.0.1:8080), for every school, resolved by Host:
//
//	GET  /.well-known/oauth-authorization-server      discovery
//	GET  /.well-known/openid-configuration            discovery
//	GET  /.well-known/oauth-protected-resource[/...]  discovery
//	GET  /.well-known/jwks.json, /auth.md, /llms.txt, /pricing.md, /openapi.json
//	     /login, /logout, /assets/*                      login (sign-in pages)
//	     /admin/developers/oauth-applications/*          admin (operator pages)
//	     /oauth/authorize, /api/oauth/*                  authz
//	POST /member/graphql                                 resource/graphql
//	     /mcp                                            resource/mcp
//	     /api/v1/*                                       operator
//
// Internal listener (default 127.0.0.1:8081; a private network in production, never advertised):
//
//	GET /healthz   the process is up
//	GET /readyz    the database answers and the server is not shutting down
//	GET /metrics   Prometheus: request counts and latencies by listener, route and status,
//	               and the application's counters (docs/metrics.md)
//	POST /internal/introspect  RFC 7662 introspection for a Member API process of the same
//	                           deployment (only when internal.api_key is set)
//	GET /mail, /mail/messages.json  the demo's mailbox (package mail/mailbox), only when
//	                                Deps.MailboxHandler is set (`proctor demo`)
//
// Server.Routes lists the routes both listeners serve, as this server's settings mount them
// (the security suite sweeps every one).
//
// While it serves, the server runs the mail worker (package mail) when mail.host is set; it
// stops after the listeners, finishing the message in flight. MailQueue is where handlers put
// their messages, in the transaction of the event that causes them.
//
// While `proctor serve` waits for its database at start-up, Starting serves the internal
// listener alone: /healthz 200, /readyz 503 {"status":"starting"}, everything else 404; then it
// hands the open socket to Serve. The public listener is not bound until then.
//
// Every public request passes, outermost first: panic recovery, request info (id, client
// address, scheme; Forwarded and X-Forwarded-* believed only from trusted proxies, by
// edge.FromProxies's rule), security headers, access log and metrics, school resolution
// (unreadable forwarding headers: 400 JSON; unknown host: 404 JSON), body size limit (a body
// declared over it: 413, a page's error page in the member's language, the API's JSON
// otherwise), https only (a school whose base_url is https, reached over http: pages redirected
// to its https origin, API and OAuth endpoints 400 in their own error shape), then the router.
//
// The pages' school appearance is cached per replica (looks.go); with Redis, a change through
// the operator API is announced to every replica by a version in Redis (looks_versions.go).
package server
