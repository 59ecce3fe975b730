// Package password hashes and verifies member passwords, and decides which new passwords are
// acceptable.
//
// Hashes are argon2id (RFC 9106), stored as PHC strings
// ("$argon2id$v=19$m=...,t=...,p=...$salt$hash") so that parameters can be raised later
// without invalidating existing hashes.
// Verify also reads the formats members bring from other platforms (imported.go): bcrypt
// ($2a$, $2b$, $2y$) and PBKDF2-SHA256 as Django and passlib write it. Every cost read from a
// hash is bounded. NeedsRehash tells a caller that has just verified a password to replace
// an imported hash by argon2id, which is how imported hashes go away; an argon2id hash is kept
// whatever its parameters (see NeedsRehash).
//
// CheckPolicy is the rule for a new password (NIST SP 800-63B 3.1.1.2): at least 8
// characters, at most MaxLength bytes, not in a list of commonly used passwords, not the
// member's own e-mail address or name; no composition rules. Its errors are sentences meant
// for the member.
package password
