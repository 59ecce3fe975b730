// Package factor holds the shapes of members' second factors (TOTP, single-use recovery codes,
// passkeys) and the store interfaces over them, which storage/gormstore implements. Factors
// belong to a member at one school: a passkey's relying party is the school's host, and an
// owner who resets a member's factors resets them at that school only.
//
// It also names the authentication methods a session records (RFC 8176 "amr" values), which
// ID tokens and UserInfo report.
//
// The package is a leaf (it imports storage only) so that the store can implement its
// interfaces without importing the packages that show the pages.
package factor
