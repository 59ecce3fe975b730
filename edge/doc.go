// Package edge holds what the HTTP edge learns about a request and the writers that turn
// results into responses.
//
// The server's outermost middleware records each request's id, client address and effective
// scheme in an Info carried by the context; handlers read it with FromContext, for example to
// rate-limit logins per address. Forwarding headers (Forwarded, X-Forwarded-For/-Proto/-Host)
// are read only from trusted proxies, by one rule for all of them (FromProxies, with the RFC 7239
// parser ParseForwarded): the client address, scheme and host of the hop the nearest untrusted
// address marks, never anything the client wrote left of it. Handlers return errors; only the
// edge writes them, as JSON bodies with no debug detail.
package edge
