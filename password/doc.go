// Package password hashes and verifies member passwords with argon2id (RFC 9106), stored as
// PHC strings ("$argon2id$v=19$m=...,t=...,p=...$salt$hash") so that parameters can be raised
// later without invalidating existing hashes.
package password
