// Package login owns the browser side of authorization at a school's own host: signing in
// and out, member sessions, the consent page, CSRF protection of every form, and the error
// pages the authorization endpoint shows.
//
// Routes (Handler.Mount), on every school's host:
//
//	GET  /login          sign-in form (e-mail, password); a signed-in member goes on to return_to
//	POST /login          check the password, start a session, 303 to return_to or /login/done
//	GET  /login/factor   the second step: a TOTP or recovery code after the password (pending
//	                     cookie), or again for a signed-in member (step_up=1)
//	POST /login/factor   check the code; start the session, or mark it (step-up); 303 to return_to
//	GET  /login/done     "you are signed in" page with a sign-out button
//	GET  /logout         asks for confirmation (a GET never signs anyone out)
//	POST /logout         deletes the session and clears its cookie (csrf_token required)
//	GET  /assets/{file}  the pages' stylesheet and the passkey script, named by their content hash
//
// For the authorization endpoint (package authz), which owns GET and POST /oauth/authorize:
// Current and Load find the request's session, RedirectToLogin sends the browser to sign in
// and back, RenderConsent draws the approve/deny form, CheckCSRF checks its csrf_token, and
// RenderError draws an error page. For pages of other packages (package account): StartSession
// signs a member in, WritePage and Fail write pages, and FormToken/CheckFormToken give a form
// shown before any session (a forgotten password, a link's page) the sign-in form's double-submit
// CSRF token. Package passkey signs a member in with StartSessionWith (the passkey's methods),
// runs its second step through Challenge, TakeFactorAttempt and CompleteFactor, and names its
// cookie by SecureCookies.
//
// Sessions: the cookie carries 256 random bits; the store keeps only their HMAC-SHA256 (under
// a key derived from the system secret) in a school-scoped table, so a session exists only at
// the school whose host created it, with the browser's User-Agent and address for the member's
// list of sessions. Idle and absolute timeouts are checked on the server; Deps.OnSignIn hears
// of each successful sign-in. Every attempt (succeeded, failed, throttled) is recorded in the
// security event log through Deps.Audit (audit.go), without the address typed.
// Sign-in attempts are charged per e-mail (or per known-device cookie, device.go) and per
// client address to a Limiter before any password is checked, atomically, and given back when
// they were not failures; once a budget is spent the attempt is refused. Operators lift an
// account's lockout through Unlocks (unlock.go). At most a few password hashes run at once
// (hashgate.go), for every form that hashes a password (CheckCurrentPassword, HashNewPassword);
// a form that finds no free slot is answered 503. A failed sign-in looks and costs the same
// whether or not the account exists (except, until its first sign-in, for a member whose hash
// was imported from another platform). A successful sign-in replaces an imported (bcrypt or
// PBKDF2) hash with argon2id at password.Default, in the same hash slot.
// A member with a second factor at the school (SecondFactors, package mfa) is asked for it after
// the password (factorstep.go): a signed pending cookie, then /login/factor; the session records
// how it was signed in (amr) and when a factor was last entered, for ID tokens and step-up.
// OperatorFactorGate applies the school's security.operator_mfa to operator pages and scopes.
// docs/sessions.md has the details; docs/security.md ("Second factors") those of the factors.
package login
