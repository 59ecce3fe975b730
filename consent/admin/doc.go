// Package admin serves a school's operator pages: the OAuth applications (the member clients an
// owner or admin creates for developers, who then ask the school's members for access; spec,
// Registration rules 5 and 6) and the security event log (package audit). It lives beside package consent because it is the same kind of
// page at the same host, signed in with the same session and protected by the same CSRF token;
// it adds no session or CSRF mechanism of its own.
//
// Routes (Handler.Mount), on every school's host:
//
//	GET  /admin/developers/oauth-applications              list (50 a page; ?after= continues)
//	POST /admin/developers/oauth-applications              create; then 303 to the application (public)
//	                                                       or 200 with the one-time secret (confidential)
//	GET  /admin/developers/oauth-applications/new          the creation form
//	GET  /admin/developers/oauth-applications/{id}         one application: client_id, redirect URIs, scopes
//	GET  /admin/developers/oauth-applications/{id}/rotate  asks to confirm a new secret (confidential only)
//	POST /admin/developers/oauth-applications/{id}/rotate  issues it: 200 with the one-time secret
//	GET  /admin/developers/oauth-applications/{id}/delete  asks to confirm the deletion
//	POST /admin/developers/oauth-applications/{id}/delete  deletes the client, revoking its tokens; 303 to the list
//	GET  /admin/security-events                            the school's security events, newest first (50 a page);
//	                                                       ?member= (e-mail or id), kind=, since=, until= (dates),
//	                                                       before= (an event id: the older page)
//
// Who gets what, checked in this order:
//   - a school without features.mcp_connections: the applications' routes do not match, so the
//     answer is the server's ordinary 404 and the pages' existence is not revealed (the events
//     page is every school's);
//   - no valid session at this school: 303 to /login with return_to;
//   - a signed-in member without the owner or admin role here: 403 page;
//   - an id that is not one of this school's member clients (another school's, an operator
//     client, a deleted one): 404 page;
//   - a POST without the session's csrf_token: 403, the form shown again with a message.
//
// A client secret is shown once, in the answer to the POST that issued it, with Cache-Control:
// no-store; it never appears in a URL, a cookie or the log, and only its keyed hash is stored
// (authz.SecretHasher). A page fetched later cannot show it, which is why that one answer is not
// a redirect; the other POSTs end in one (Post/Redirect/Get). Creation and rotation share their
// rules with the CLI through package authz (CheckClientRequest, SecretHasher.NewClient,
// RotateClientSecret). docs/clients.md, "Operator pages", has the details.
package admin
