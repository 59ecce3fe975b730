// Package account owns what a member does with their own account at a school, and how a
// member gets one without an operator handling passwords: invitations, password recovery, and
// the account page.
//
// Routes (Handler.Mount), on every school's host:
//
//	GET  /invitation?token=   the invitation's page: choose a password (or, for a person who
//	                          already has one, a note to sign in with it)
//	POST /invitation          set the password, use the link, sign in
//	GET  /login/forgot        "forgot password" form
//	POST /login/forgot        the same answer whether or not the address is a member's
//	GET  /login/reset?token=  choose a new password
//	POST /login/reset         set it, use the link, end the member's other sessions
//	GET  /account             the member's account page
//	POST /account/...         its forms (profile, password, e-mail, sessions, applications)
//	GET  /account/email/confirm?token=  confirm a new e-mail address (POST does it)
//
// A GET never uses a link: mail scanners open links before people do, so every link opens a
// page whose form, posted, does the work. Links carry 256 random bits; the store keeps only
// their keyed hash, bound to the school and the address they were sent to, and the stamp of the
// password they were made under, so that a password changed any other way kills them.
//
// Service (service.go) does the work without HTTP, for the pages, the CLI (proctor members
// invite, reset-link) and the operator API: Invite (identity, roles, link and e-mail in one
// transaction), RequestReset (one outbox request, whoever the address belongs to), Expanders
// (the mail worker's expander that turns such a request into a reset message, or into
// nothing), SendResetLink (an operator's reset link and message in one transaction, by the
// expander's code), ResetPassword and AcceptInvitation. docs/accounts.md describes the flows.
package account
