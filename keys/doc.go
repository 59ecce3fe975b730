// Package keys owns each school's ES256 signing keys: creating them, keeping their private
// halves encrypted at rest, rotating them, and publishing their public halves as a JWK Set
// (spec, Authentication rule 9: an ID token's signature validates against the key named by its
// kid at jwks_uri).
//
// Storage. A key is a storage.SigningKey row of the school's: a random kid, the public JWK, and
// the private key as PKCS#8 DER sealed with AES-256-GCM (internal/seal) under a key derived
// from the system secret (HKDF-SHA256). The additional data binds the ciphertext to its school
// and kid, so a row copied elsewhere does not decrypt (crypt.go). The private key never leaves the process in
// the clear.
//
// Which key signs. The current key is the school's newest key that is not retired; every key
// that is not retired is published. A rotation adds a new key and retires all but the one that
// was current, so the JWKS holds the current key and the previous one: tokens signed just before
// a rotation keep verifying. A school's first key is made on first use.
//
// Cache and replicas. A Manager caches, per school, the decrypted current key and the encoded
// JWKS for CacheTTL (30s by default), so signing and serving the JWKS cost no query and no
// decryption. That TTL is the bound within which a rotation made by another replica (or by
// `proctor keys rotate`) is seen; a rotation through the Manager itself is seen at once.
//
// go-jose: this package uses github.com/go-jose/go-jose/v4. fosite links v3; the two are kept
// apart, and only plain crypto types (*ecdsa.PrivateKey) cross into fosite's code.
package keys
