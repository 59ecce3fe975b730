// Package seal encrypts secrets at rest: the signing keys' private halves (package keys) and
// the mail outbox's payloads (package mail) are sealed by its one Sealer, so the byte format
// and its checks are written once.
//
// Format (version 1), which must never change for rows already stored:
//
//	sealed = version (1 byte, 1) || nonce (12 bytes, random) || AES-256-GCM ciphertext and tag
//	additional data = version || school id (8 bytes, big-endian) || label
//
// The additional data binds the bytes to a school and a label (a key's kid, an outbox entry's
// kind): bytes copied to another school or label do not open. The school id has a fixed width,
// so the label that follows cannot be shifted into it. The version names the whole scheme, so a
// later one could be told apart and old rows still read.
//
// The key is the caller's: each use derives its own from the system secret
// (config.Secret.Derive with a purpose of its own), so no two uses share key material. The
// package imports nothing of the module.
//
// mfa's TOTP secrets are sealed differently (no version byte, other additional data) and do
// not use this package: changing them would need a migration of the stored rows.
package seal
