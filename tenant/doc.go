// Package tenant resolves a public request to its school and carries that school in the request
// context.
//
// Every school ("tenant") has its own origin, given by base_url in its tenant file. A Registry
// maps the request's Host (and port) to the tenant; an unknown host has no tenant and is answered
// 404 by the middleware. The tenant travels in the context under a private key type, and
// FromContext fails closed: code that needs a school and finds none gets ErrNoTenant instead of
// silently reading every school's rows.
package tenant
