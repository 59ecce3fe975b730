// Package school resolves a public request to its school and carries that school in the request
// context.
//
// Every school (the deployment's word for a tenant) has its own origin, given by base_url in its school file. A Registry
// maps the request's Host (and port) to the school; an unknown host has no school and is answered
// 404 by the middleware. The school travels in the context under a private key type, and
// FromContext fails closed: code that needs a school and finds none gets ErrNoSchool instead of
// silently reading every school's rows.
//
// School.SameOrigin is the one rule for "this URL is on the school's origin", compared as the
// Registry matches hosts: the RFC 8707 resource a token is issued for (package authz), the
// token's binding checked at every protected resource (resource.BoundTo) and the Origin header
// of the MCP endpoint all go through it.
package school
