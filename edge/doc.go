// Package edge holds what the HTTP edge learns about a request and the writers that turn
// results into responses.
//
// The server's outermost middleware records each request's id, client address and effective
// scheme (believing X-Forwarded-* only from trusted proxies) in an Info carried by the context;
// handlers read it with FromContext, for example to rate-limit logins per address. Handlers
// return errors; only the edge writes them, as JSON bodies with no debug detail.
package edge
