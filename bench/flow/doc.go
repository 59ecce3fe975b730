// Package flow is the client side of Proctor's sign-in and OAuth flows as a member's browser and
// native app drive them over HTTP: the sign-in and sign-out forms with their csrf_token, the
// consent page, PKCE S256, the resource parameter, state and iss checked on the redirect, and
// the token, revocation and UserInfo endpoints.
//
// It imports nothing of the server but its public paths (package endpoint), so that the load
// generator (bench) and the process tests (systemtest) reach the server only as any client does,
// through one implementation of the flows they both drive. Its reader of a page's forms
// (ParseForms: what a browser submits, buttons apart) is also the one servertest's tests use.
package flow
