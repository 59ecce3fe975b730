// Package admin serves a school's operator pages: the OAuth applications (the member clients an
// owner or admin creates for developers, who then ask the school's members for access; spec,
// Registration rules 5 and 6), member administration and the security event log (package
// audit). It sits beside package login because it is the same kind of
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
// Member administration (members.go; docs/security.md, "Member administration"), at every
// school whatever its features, behind the same sign-in and operator check:
//
//	GET  /admin/members                              list (50 a page; ?q= searches e-mail and name, ?after= continues)
//	GET  /admin/members/{member_id}                  one member: status, roles, last sign-in, second factors, actions
//	GET  /admin/members/{member_id}/{action}         asks to confirm the action (the roles form for "roles")
//	POST /admin/members/{member_id}/{action}         takes it; 303 to the member's page (the list after "remove")
//
// Actions: roles, invite, reset-link, unlock, reset-factors, sign-out, remove. A member id that
// is not of this school is the 404 page on every route; an action the operator may not take is
// 403 with the reason; the last owner's demotion or removal is 409. Every action is recorded in
// the security event log (package audit) with the operator as actor and the member as subject.
//
// A client secret is shown once, in the answer to the POST that issued it, with Cache-Control:
// no-store; it never appears in a URL, a cookie or the log, and only its keyed hash is stored
// (client.SecretHasher). A page fetched later cannot show it, which is why that one answer is not
// a redirect; the other POSTs end in one (Post/Redirect/Get). Creation, rotation and deletion
// share their rules with the CLI through the server's client.Manager (Create, RotateSecret,
// Delete). docs/clients.md, "Operator pages", has the details.
//
// The pages speak the request's language (login.Handler.Localize puts its localizer in the
// context; every operator page reads it once, as visit.loc): their sentences, notices, refusals
// and field errors are the catalogue's admin.* messages, their dates are written in the
// school's time zone. What the security event log stores (kinds, details) is shown as stored.
package admin
