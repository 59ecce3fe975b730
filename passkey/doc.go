// Package passkey owns passkeys (WebAuthn credentials): a member adds them from their account
// area and signs in with one instead of a password, or uses one as the second step after a
// password. The school is the relying party: its id is the host of the school's origin (no
// port), its one origin the school's origin, so a passkey made at one school is refused at every
// other. A school served at an IP address (a development set-up at 127.0.0.1) has no passkeys,
// since browsers refuse an address as a relying party id.
//
// Routes (Handler.Mount), on every school's host:
//
//	GET  /account/passkeys                  the member's passkeys: add, rename, remove
//	POST /account/passkeys/register/begin   JSON: the options of a new passkey (csrf_token)
//	POST /account/passkeys/register/finish  JSON: store the browser's new credential (csrf_token, name, response)
//	POST /account/passkeys/rename           rename one (csrf_token, id, name)
//	POST /account/passkeys/remove           remove one (csrf_token, id, current_password)
//	GET  /login/passkey                     passwordless sign-in with a passkey
//	POST /login/passkey/begin               JSON: the options of a sign-in (csrf_token)
//	POST /login/passkey/finish              JSON: check the assertion, start the session (csrf_token, response, return_to)
//	GET  /login/factor/passkey              the passkey as the second step (after a password, or step_up=1)
//	POST /login/factor/passkey/begin        JSON: the options, the member's passkeys listed (csrf_token, return_to, step_up)
//	POST /login/factor/passkey/finish       JSON: check the assertion, end the step (csrf_token, response, return_to, step_up)
//
// The JSON endpoints take form posts with a CSRF token (the session's when signed in,
// login.FormToken's double submit before) and answer JSON: the options for the browser's
// navigator.credentials, {"redirect": path} when a ceremony finished, or an RFC 6749-shaped
// error whose description is a sentence for the member, in the request's language (its code
// the same in every language). The pages are the only ones that run a
// script (templates/static/passkey.js, from this origin only: Policy).
//
// A ceremony's state lives in the store, not in the process: begin stores it under the keyed
// hash of a random value it puts in a short-lived cookie, and finish consumes it in one
// statement, so any replica can finish what another began and a challenge answers once. The
// store keeps each passkey's public key, signature counter, AAGUID, transports, backup flags and
// the member's name for it (factor.Passkey). docs/security.md ("Passkeys") has the rules.
package passkey
