package password

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"

	"golang.org/x/crypto/argon2"
)

// Params are argon2id cost parameters.
type Params struct {
	MemoryKiB uint32
	Time      uint32
	Threads   uint8
}

// Default follows RFC 9106's second recommended option (64 MiB, 3 passes), kept at one lane
// per hash so that concurrent logins on a small machine do not starve each other of cores.
var Default = Params{MemoryKiB: 64 * 1024, Time: 3, Threads: 1}

const (
	saltLen = 16
	keyLen  = 32
	// MaxLength bounds what is hashed: argon2 accepts any length, but a megabyte "password"
	// is a denial-of-service attempt, not a password.
	MaxLength = 1024
)

var (
	// ErrMismatch: the password does not match the hash.
	ErrMismatch = errors.New("password: mismatch")
	// ErrMalformedHash: the stored hash is in no format this package can read (IsHash), or its
	// parameters are outside the bounds it accepts.
	ErrMalformedHash = errors.New("password: malformed hash")
	// ErrTooLong: the password is longer than MaxLength bytes.
	ErrTooLong = errors.New("password: too long")
)

var b64 = base64.RawStdEncoding

// Hash returns the PHC string of an argon2id hash of pw with a fresh random salt.
func Hash(pw string, p Params) (string, error) {
	if len(pw) > MaxLength {
		return "", ErrTooLong
	}
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("password: salt: %w", err)
	}
	key := argon2.IDKey([]byte(pw), salt, p.Time, p.MemoryKiB, p.Threads, keyLen)
	return p.phcPrefix() + b64.EncodeToString(salt) + "$" + b64.EncodeToString(key), nil
}

// phcPrefix is how Hash starts a hash made with p: the algorithm, its version and p, up to
// the salt.
func (p Params) phcPrefix() string {
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$", argon2.Version, p.MemoryKiB, p.Time, p.Threads)
}

// HashedWith reports whether hash is written the way Hash writes a hash made with p: a check
// of the parameters only, not of the hash itself (Verify does that).
func HashedWith(hash string, p Params) bool {
	return strings.HasPrefix(hash, p.phcPrefix())
}

// Verify reports nil if pw matches hash, ErrMismatch if not, ErrMalformedHash if hash is in
// no format IsHash accepts. Every format compares the derived value in constant time.
func Verify(pw, hash string) error {
	if len(pw) > MaxLength {
		return ErrMismatch
	}
	f, ok := formatOf(hash)
	if !ok {
		return ErrMalformedHash
	}
	return f.verify(pw, hash)
}

// format is one way of writing a hash that Verify reads: how such a hash starts, how it is
// checked for being well formed, and how a password is verified against it.
type format struct {
	prefixes []string
	parse    func(hash string) error
	verify   func(pw, hash string) error
}

// formats are argon2id, which Hash writes, and the imported formats (imported.go).
var formats = []format{
	{[]string{"$argon2id$"}, func(h string) error { _, _, _, err := parse(h); return err }, verifyArgon2id},
	{[]string{"$2"}, parseBcrypt, verifyBcrypt},
	{[]string{djangoPrefix, passlibPrefix}, func(h string) error { _, err := parsePBKDF2(h); return err }, verifyPBKDF2},
}

// formatOf is the format hash is written in, told by how it starts.
func formatOf(hash string) (format, bool) {
	for _, f := range formats {
		for _, p := range f.prefixes {
			if strings.HasPrefix(hash, p) {
				return f, true
			}
		}
	}
	return format{}, false
}

func verifyArgon2id(pw, hash string) error {
	p, salt, key, err := parse(hash)
	if err != nil {
		return err
	}
	got := argon2.IDKey([]byte(pw), salt, p.Time, p.MemoryKiB, p.Threads, uint32(len(key)))
	if subtle.ConstantTimeCompare(got, key) != 1 {
		return ErrMismatch
	}
	return nil
}

// IsHash reports whether s is a hash Verify can check: an argon2id PHC string, or one of the
// imported formats (bcrypt, PBKDF2-SHA256 as Django or passlib write it; imported.go). Seed
// fixtures may carry password_hash instead of a plain password, and sign-in treats a member
// whose hash is not one as having no password.
func IsHash(s string) bool {
	f, ok := formatOf(s)
	return ok && f.parse(s) == nil
}

// NeedsRehash reports whether hash should be replaced, once its password is known (at a
// successful sign-in), by Hash(pw, Default): true for every imported format (bcrypt, PBKDF2),
// so that members moving from another platform end up with argon2id. An argon2id hash is kept
// whatever its parameters: tests and benchmarks seed cheap ones on purpose, and a rehash costs
// 64 MiB; raising Default for existing members would be a decision of its own.
func NeedsRehash(hash string) bool {
	_, _, _, err := parse(hash)
	return err != nil && IsHash(hash)
}

// parse reads "$argon2id$v=19$m=M,t=T,p=P$salt$key", refusing parameters far outside what this
// package writes so that a tampered row cannot make verification allocate gigabytes.
func parse(hash string) (Params, []byte, []byte, error) {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return Params{}, nil, nil, ErrMalformedHash
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return Params{}, nil, nil, ErrMalformedHash
	}
	var p Params
	if n, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.MemoryKiB, &p.Time, &p.Threads); err != nil || n != 3 {
		return Params{}, nil, nil, ErrMalformedHash
	}
	if p.MemoryKiB < 8 || p.MemoryKiB > 1<<20 || p.Time < 1 || p.Time > 16 || p.Threads < 1 || p.Threads > 16 {
		return Params{}, nil, nil, ErrMalformedHash
	}
	salt, err := b64.DecodeString(parts[4])
	if err != nil || len(salt) < 8 {
		return Params{}, nil, nil, ErrMalformedHash
	}
	key, err := b64.DecodeString(parts[5])
	if err != nil || len(key) < 16 || len(key) > 64 {
		return Params{}, nil, nil, ErrMalformedHash
	}
	return p, salt, key, nil
}

// dummyHashOnce is verified against when an account does not exist, so that a failed login costs
// the same whether or not the e-mail is known (no account enumeration by timing).
var dummyHashOnce = sync.OnceValue(func() string {
	h, err := Hash("proctor-dummy-password", Default)
	if err != nil {
		// crypto/rand failing leaves nothing safe to do.
		panic(err)
	}
	return h
})

// VerifyDummy does the work of Verify against a hash nobody can match. Call it when the account
// is missing; it always returns ErrMismatch.
func VerifyDummy(pw string) error {
	_ = Verify(pw, dummyHashOnce())
	return ErrMismatch
}
