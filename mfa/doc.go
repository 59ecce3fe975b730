// Package mfa is members' second factors at a school: TOTP (RFC 6238: 30-second steps, 6
// digits, HMAC-SHA1, one step of skew either way, no code accepted twice) and ten single-use
// recovery codes that come with it.
//
// Service is the factor logic over factor.Store: it seals TOTP secrets with AES-256-GCM under
// a key derived from the system secret (the store holds only ciphertext, bound to the school and
// member), hashes recovery codes with HMAC-SHA256 under another derived key, and verifies codes
// for the second sign-in step (it is login.SecondFactors). Handler serves the member's pages:
//
//	GET  /account/security                  the member's second factors
//	GET  /account/security/totp             enrol: a new secret as a QR code and as text
//	POST /account/security/totp             confirm it with a code; shows the recovery codes once
//	POST /account/security/totp/remove      turn TOTP off (current password or a fresh factor)
//	POST /account/security/recovery-codes   new recovery codes (current password or a fresh factor)
//
// The second sign-in step itself (/login/factor), step-up and the operators' policy are package
// consent's; docs/security.md describes them all.
package mfa
