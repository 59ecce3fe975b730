package password

import (
	"crypto/pbkdf2"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/crypto/bcrypt"
)

// Hashes imported from other platforms, so that members moving to Proctor keep their
// passwords. Verify checks them; NeedsRehash is true for all of them, so the first successful
// sign-in replaces each with an argon2id hash. Proctor never writes them.
//
// Every cost read from a hash is bounded: a stored hash decides how much work a sign-in does,
// and a hash nobody could check in reasonable time is refused as malformed rather than let
// one sign-in (or a dummy-free failure) cost minutes.

// bcrypt ($2a$, $2b$, $2y$): "$2b$" + 2-digit cost + "$" + 22 characters of salt and 31 of
// hash in bcrypt's base64 alphabet, 60 in all. $2a$ (Rails/Devise, most libraries), $2b$
// (OpenBSD and Python's bcrypt since 2014) and $2y$ (PHP: Laravel, Moodle) name fixes of bugs
// in other implementations, not different algorithms: they hash the same passwords alike.
// golang.org/x/crypto/bcrypt reads the letter after "$2" as a free minor version and writes it
// back unchanged when it compares, so no prefix needs rewriting.
const (
	bcryptLen = 60
	// maxBcryptCost bounds the work of one check: cost c runs 2^c key expansions, so cost 16
	// is already seconds, and 31 (bcrypt's own maximum) would be days.
	maxBcryptCost  = 16
	bcryptAlphabet = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
)

// parseBcrypt checks the shape of a bcrypt hash and its cost, everything the library would
// otherwise reject (or spend days on) only while comparing.
func parseBcrypt(hash string) error {
	if len(hash) != bcryptLen || hash[0] != '$' || hash[1] != '2' || !strings.ContainsRune("aby", rune(hash[2])) ||
		hash[3] != '$' || hash[6] != '$' {
		return ErrMalformedHash
	}
	if !isDigit(hash[4]) || !isDigit(hash[5]) {
		return ErrMalformedHash
	}
	if cost := int(hash[4]-'0')*10 + int(hash[5]-'0'); cost < bcrypt.MinCost || cost > maxBcryptCost {
		return ErrMalformedHash
	}
	for i := 7; i < len(hash); i++ {
		if strings.IndexByte(bcryptAlphabet, hash[i]) < 0 {
			return ErrMalformedHash
		}
	}
	return nil
}

// verifyBcrypt leaves the comparison to the library, which compares in constant time
// (subtle.ConstantTimeCompare). bcrypt reads at most 72 bytes of a password: longer ones are
// compared on their first 72, as on the platforms these hashes come from.
func verifyBcrypt(pw, hash string) error {
	if err := parseBcrypt(hash); err != nil {
		return err
	}
	switch err := bcrypt.CompareHashAndPassword([]byte(hash), []byte(pw)); {
	case err == nil:
		return nil
	case errors.Is(err, bcrypt.ErrMismatchedHashAndPassword):
		return ErrMismatch
	default:
		return fmt.Errorf("%w: %v", ErrMalformedHash, err)
	}
}

// PBKDF2-HMAC-SHA256 (RFC 8018) in the two forms it is exported in:
//
//	Django:  pbkdf2_sha256$<iterations>$<salt>$<hash, standard base64 with padding>
//	passlib: $pbkdf2-sha256$<iterations>$<salt, ab64>$<hash, ab64>
//
// Django's salt is used as written (its characters are the salt bytes); passlib's is the
// "adapted base64" of random bytes: standard base64 with '.' for '+' and no padding.
const (
	djangoPrefix  = "pbkdf2_sha256$"
	passlibPrefix = "$pbkdf2-sha256$"
	// Iteration bounds: below 1,000 nobody has exported in a decade (Django started at 10,000
	// in 2012, passlib at 29,000), and 2,000,000 is above Django's current default (1,200,000
	// in 6.0) while still well under a second.
	minPBKDF2Iterations = 1_000
	maxPBKDF2Iterations = 2_000_000
	// Key bounds: both write 32 bytes (SHA-256's size); other lengths are allowed within reason.
	minPBKDF2Key  = 16
	maxPBKDF2Key  = 64
	maxPBKDF2Salt = 128
)

var ab64 = base64.RawStdEncoding

type pbkdf2Hash struct {
	iterations int
	salt, key  []byte
}

// parsePBKDF2 reads either form: the same three fields after the prefix, the salt and the key
// written differently.
func parsePBKDF2(hash string) (pbkdf2Hash, error) {
	var h pbkdf2Hash
	rest, django := strings.CutPrefix(hash, djangoPrefix)
	if !django {
		var passlib bool
		if rest, passlib = strings.CutPrefix(hash, passlibPrefix); !passlib {
			return h, ErrMalformedHash
		}
	}
	parts := strings.Split(rest, "$")
	if len(parts) != 3 {
		return h, ErrMalformedHash
	}
	iterations, salt, keyText := parts[0], parts[1], parts[2]
	var err error
	if django {
		h.salt = []byte(salt)
		if h.key, err = base64.StdEncoding.DecodeString(keyText); err != nil {
			return h, ErrMalformedHash
		}
	} else {
		if h.salt, err = decodeAB64(salt); err != nil {
			return h, ErrMalformedHash
		}
		if h.key, err = decodeAB64(keyText); err != nil {
			return h, ErrMalformedHash
		}
	}
	if h.iterations, err = parseIterations(iterations); err != nil {
		return h, err
	}
	if len(h.salt) == 0 || len(h.salt) > maxPBKDF2Salt || len(h.key) < minPBKDF2Key || len(h.key) > maxPBKDF2Key {
		return h, ErrMalformedHash
	}
	return h, nil
}

// decodeAB64 reads passlib's adapted base64. A '+' is refused: passlib never writes one, and
// accepting both spellings would give one hash two texts.
func decodeAB64(s string) ([]byte, error) {
	if strings.ContainsAny(s, "+=") {
		return nil, ErrMalformedHash
	}
	return ab64.DecodeString(strings.ReplaceAll(s, ".", "+"))
}

// parseIterations reads a plain decimal count within the bounds: digits only (no sign, no
// spaces), no leading zero.
func parseIterations(s string) (int, error) {
	if s == "" || len(s) > 7 || s[0] == '0' {
		return 0, ErrMalformedHash
	}
	for i := range len(s) {
		if !isDigit(s[i]) {
			return 0, ErrMalformedHash
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < minPBKDF2Iterations || n > maxPBKDF2Iterations {
		return 0, ErrMalformedHash
	}
	return n, nil
}

func verifyPBKDF2(pw, hash string) error {
	h, err := parsePBKDF2(hash)
	if err != nil {
		return err
	}
	got, err := pbkdf2.Key(sha256.New, pw, h.salt, h.iterations, len(h.key))
	if err != nil {
		// Only a FIPS 140-only mode refuses parameters that parsePBKDF2 accepts.
		return fmt.Errorf("password: pbkdf2: %w", err)
	}
	if subtle.ConstantTimeCompare(got, h.key) != 1 {
		return ErrMismatch
	}
	return nil
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }
