// Package school resolves a public request to its school and carries that school in the request
// context.
//
// Every school (the deployment's word for a tenant) has its own origin, given by base_url in its school file. A Registry
// maps the request's Host (and port) to the school; an unknown host has no school and is answered
// 404 by the middleware. The school travels in the context under a private key type, and
// FromContext fails closed: code that needs a school and finds none gets ErrNoSchool instead of
// silently reading every school's rows.
package school
