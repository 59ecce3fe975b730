package password

import (
	"crypto/pbkdf2"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"
)

const importedPW = "correct horse battery staple"

// bcryptHash makes a bcrypt hash of pw at the library's lowest cost with the given prefix
// ("$2a$", "$2b$" or "$2y$"). The library writes $2a$; the other two differ only in the
// letter, which is what other platforms' exports look like.
func bcryptHash(t testing.TB, pw, prefix string) string {
	t.Helper()
	h, err := bcrypt.GenerateFromPassword([]byte(pw), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(h), "$2a$") {
		t.Fatalf("bcrypt wrote %q", h)
	}
	return prefix + string(h[4:])
}

func TestBcrypt(t *testing.T) {
	for _, prefix := range []string{"$2a$", "$2b$", "$2y$"} {
		t.Run(prefix, func(t *testing.T) {
			h := bcryptHash(t, importedPW, prefix)
			if !IsHash(h) {
				t.Fatalf("IsHash(%q) = false", h)
			}
			if err := Verify(importedPW, h); err != nil {
				t.Fatalf("Verify(right) = %v", err)
			}
			if err := Verify("correct horse battery stapler", h); !errors.Is(err, ErrMismatch) {
				t.Fatalf("Verify(wrong) = %v, want ErrMismatch", err)
			}
			if !NeedsRehash(h) {
				t.Error("NeedsRehash(bcrypt) = false")
			}
		})
	}
}

func TestBcryptBounds(t *testing.T) {
	good := bcryptHash(t, importedPW, "$2b$")
	for name, h := range map[string]string{
		"cost 17":          good[:4] + "17" + good[6:],
		"cost 31":          good[:4] + "31" + good[6:],
		"cost 03":          good[:4] + "03" + good[6:],
		"cost not digits":  good[:4] + "1a" + good[6:],
		"$2x$":             "$2x$" + good[4:],
		"$2$":              "$2$" + good[4:],
		"short":            good[:59],
		"long":             good + ".",
		"outside alphabet": good[:20] + "+" + good[21:],
		"no separator":     good[:6] + "." + good[7:],
	} {
		if IsHash(h) {
			t.Errorf("%s: IsHash(%q) = true", name, h)
		}
		if err := Verify(importedPW, h); !errors.Is(err, ErrMalformedHash) {
			t.Errorf("%s: Verify = %v, want ErrMalformedHash", name, err)
		}
	}
}

// pbkdf2Vectors are PBKDF2-HMAC-SHA256 hashes of importedPW computed with Python's hashlib
// (hashlib.pbkdf2_hmac) and formatted by hand, as Django and passlib write them:
//
//	python3 -c "import hashlib,base64; pw=b'correct horse battery staple'; \
//	  dk=hashlib.pbkdf2_hmac('sha256', pw, b'Gq5nKVp3WxHbT8sYc2LmRe', 260000); \
//	  print('pbkdf2_sha256$260000$Gq5nKVp3WxHbT8sYc2LmRe$' + base64.b64encode(dk).decode()); \
//	  ab = lambda b: base64.b64encode(b).decode().rstrip('=').replace('+', '.'); \
//	  dk = hashlib.pbkdf2_hmac('sha256', pw, bytes(range(16)), 29000); \
//	  print('$pbkdf2-sha256$29000$' + ab(bytes(range(16))) + '$' + ab(dk))"
var pbkdf2Vectors = []string{
	// Django 3.1's iteration count and a 22-character salt, as Django writes them.
	"pbkdf2_sha256$260000$Gq5nKVp3WxHbT8sYc2LmRe$duMneQcytWKSs3gxGJ0bbZwmOguUb4RjVowfSg39ljw=",
	// passlib's pbkdf2_sha256 default rounds (29000) and a 16-byte salt.
	"$pbkdf2-sha256$29000$AAECAwQFBgcICQoLDA0ODw$m/kLywdyNwK9GV2kWntRGvZzmeiVsuqehNWlLst2eWY",
}

func TestPBKDF2Vectors(t *testing.T) {
	for _, h := range pbkdf2Vectors {
		if !IsHash(h) {
			t.Fatalf("IsHash(%q) = false", h)
		}
		if err := Verify(importedPW, h); err != nil {
			t.Errorf("Verify(right, %q) = %v", h, err)
		}
		if err := Verify("Correct horse battery staple", h); !errors.Is(err, ErrMismatch) {
			t.Errorf("Verify(wrong, %q) = %v, want ErrMismatch", h, err)
		}
		if !NeedsRehash(h) {
			t.Errorf("NeedsRehash(%q) = false", h)
		}
	}
}

// The same derived key written both ways by hand: Django's salt is its text, passlib's is
// random bytes in adapted base64. The salt bytes chosen here encode with '+' and '/', so the
// '.' of adapted base64 is exercised.
func TestPBKDF2Formats(t *testing.T) {
	const iter = 5000
	salt := []byte{0xfb, 0xef, 0xbe, 0xff, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0xfb, 0xef, 0xbe, 0x42}
	key, err := pbkdf2.Key(sha256.New, importedPW, salt, iter, 32)
	if err != nil {
		t.Fatal(err)
	}
	std := base64.RawStdEncoding.EncodeToString(salt)
	if !strings.Contains(std, "+") {
		t.Fatalf("salt %q has no '+' to adapt", std)
	}
	adapted := func(b []byte) string {
		return strings.ReplaceAll(base64.RawStdEncoding.EncodeToString(b), "+", ".")
	}
	passlib := fmt.Sprintf("$pbkdf2-sha256$%d$%s$%s", iter, adapted(salt), adapted(key))

	djangoSalt := "aBcDeFgHiJkL0123456789"
	djangoKey, err := pbkdf2.Key(sha256.New, importedPW, []byte(djangoSalt), iter, 32)
	if err != nil {
		t.Fatal(err)
	}
	django := fmt.Sprintf("pbkdf2_sha256$%d$%s$%s", iter, djangoSalt, base64.StdEncoding.EncodeToString(djangoKey))

	for _, h := range []string{passlib, django} {
		if err := Verify(importedPW, h); err != nil {
			t.Errorf("Verify(right, %q) = %v", h, err)
		}
		if err := Verify(importedPW+" ", h); !errors.Is(err, ErrMismatch) {
			t.Errorf("Verify(wrong, %q) = %v", h, err)
		}
	}

	// passlib never writes standard base64's '+' or padding: a hash spelled so is not one of
	// its hashes.
	for _, h := range []string{
		fmt.Sprintf("$pbkdf2-sha256$%d$%s$%s", iter, std, adapted(key)),
		fmt.Sprintf("$pbkdf2-sha256$%d$%s$%s", iter, adapted(salt), base64.StdEncoding.EncodeToString(key)),
	} {
		if IsHash(h) {
			t.Errorf("IsHash(%q) = true", h)
		}
	}
}

func TestPBKDF2Bounds(t *testing.T) {
	key := base64.StdEncoding.EncodeToString(make([]byte, 32))
	for _, h := range []string{
		"pbkdf2_sha256$999$salt$" + key,
		"pbkdf2_sha256$2000001$salt$" + key,
		"pbkdf2_sha256$99999999999999999999$salt$" + key,
		"pbkdf2_sha256$01000$salt$" + key,
		"pbkdf2_sha256$+1000$salt$" + key,
		"pbkdf2_sha256$ 1000$salt$" + key,
		"pbkdf2_sha256$1000$$" + key,
		"pbkdf2_sha256$1000$" + strings.Repeat("s", 129) + "$" + key,
		"pbkdf2_sha256$1000$salt$" + base64.StdEncoding.EncodeToString(make([]byte, 15)),
		"pbkdf2_sha256$1000$salt$" + base64.StdEncoding.EncodeToString(make([]byte, 65)),
		"pbkdf2_sha256$1000$salt$" + key + "$extra",
		"pbkdf2_sha256$1000$salt$not base64",
		"pbkdf2_sha1$1000$salt$" + key,
		"$pbkdf2-sha256$1000$$" + strings.TrimRight(key, "="),
		"$pbkdf2-sha256$1000$c2FsdA$" + key,
		"$pbkdf2-sha256$1000$c2FsdA",
		"$pbkdf2-sha512$1000$c2FsdA$" + strings.TrimRight(key, "="),
		"$pbkdf2-sha256$i=1000$c2FsdA$" + strings.TrimRight(key, "="),
	} {
		if IsHash(h) {
			t.Errorf("IsHash(%q) = true", h)
		}
		if err := Verify(importedPW, h); !errors.Is(err, ErrMalformedHash) {
			t.Errorf("Verify(%q) = %v, want ErrMalformedHash", h, err)
		}
	}
	// The bounds themselves are accepted.
	for _, h := range []string{
		"pbkdf2_sha256$1000$s$" + key,
		"pbkdf2_sha256$2000000$salt$" + key,
		"$pbkdf2-sha256$1000$c2FsdA$" + strings.TrimRight(key, "="),
	} {
		if !IsHash(h) {
			t.Errorf("IsHash(%q) = false", h)
		}
	}
}

func TestNeedsRehash(t *testing.T) {
	current, err := Hash(importedPW, Default)
	if err != nil {
		t.Fatal(err)
	}
	cheapHash, _ := Hash(importedPW, cheap)
	for _, tc := range []struct {
		name string
		hash string
		want bool
	}{
		{"argon2id at Default", current, false},
		{"argon2id at other parameters", cheapHash, false},
		{"argon2id with a short key", current[:strings.LastIndexByte(current, '$')+1] + b64.EncodeToString(make([]byte, 16)), false},
		{"bcrypt", bcryptHash(t, importedPW, "$2y$"), true},
		{"Django PBKDF2", pbkdf2Vectors[0], true},
		{"passlib PBKDF2", pbkdf2Vectors[1], true},
		{"malformed", "plain", false},
		{"empty", "", false},
	} {
		if got := NeedsRehash(tc.hash); got != tc.want {
			t.Errorf("%s: NeedsRehash = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Every parser of a hash string gets arbitrary text: none may panic, and whatever one accepts
// is within its bounds (so a stored hash cannot make a sign-in cost more than they allow).

func FuzzParseArgon2id(f *testing.F) {
	h, _ := Hash("seed", cheap)
	f.Add(h)
	f.Add("$argon2id$v=19$m=64,t=1,p=1$c2FsdHNhbHQ$a2V5a2V5a2V5a2V5a2V5aw")
	f.Add("$argon2id$v=19$m=-1,t=1,p=1$c2FsdHNhbHQ$a2V5a2V5a2V5a2V5a2V5aw")
	f.Add("$argon2id$v=19$m=64,t=1,p=256$c2FsdHNhbHQ$a2V5a2V5a2V5a2V5a2V5aw")
	f.Fuzz(func(t *testing.T, s string) {
		p, salt, key, err := parse(s)
		if err != nil {
			return
		}
		if p.MemoryKiB > 1<<20 || p.Time > 16 || p.Threads > 16 || len(salt) < 8 || len(key) < 16 || len(key) > 64 {
			t.Fatalf("parse(%q) accepted %+v, salt %d, key %d bytes", s, p, len(salt), len(key))
		}
		if !IsHash(s) {
			t.Fatalf("parse accepts %q but IsHash does not", s)
		}
	})
}

func FuzzParseBcrypt(f *testing.F) {
	good, _ := bcrypt.GenerateFromPassword([]byte("seed"), bcrypt.MinCost)
	f.Add(string(good))
	f.Add("$2y$" + string(good[4:]))
	f.Add("$2b$99$" + string(good[7:]))
	f.Add("$2a$1")
	f.Fuzz(func(t *testing.T, s string) {
		if parseBcrypt(s) != nil {
			return
		}
		if len(s) != bcryptLen {
			t.Fatalf("parseBcrypt accepted %q", s)
		}
		// The library agrees on what was accepted, and on its cost.
		cost, err := bcrypt.Cost([]byte(s))
		if err != nil || cost < bcrypt.MinCost || cost > maxBcryptCost {
			t.Fatalf("parseBcrypt accepted %q: library cost %d, %v", s, cost, err)
		}
	})
}

func FuzzParsePBKDF2(f *testing.F) {
	for _, v := range pbkdf2Vectors {
		f.Add(v)
	}
	f.Add("pbkdf2_sha256$1000$$")
	f.Add("$pbkdf2-sha256$1000$c2FsdA$a2V5a2V5a2V5a2V5a2V5aw")
	f.Add("pbkdf2_sha256$9999999$s$a2V5a2V5a2V5a2V5a2V5aw==")
	f.Fuzz(func(t *testing.T, s string) {
		h, err := parsePBKDF2(s)
		if err != nil {
			return
		}
		if h.iterations < minPBKDF2Iterations || h.iterations > maxPBKDF2Iterations ||
			len(h.salt) == 0 || len(h.salt) > maxPBKDF2Salt || len(h.key) < minPBKDF2Key || len(h.key) > maxPBKDF2Key {
			t.Fatalf("parsePBKDF2(%q) accepted %d iterations, salt %d, key %d bytes", s, h.iterations, len(h.salt), len(h.key))
		}
		if !IsHash(s) {
			t.Fatalf("parsePBKDF2 accepts %q but IsHash does not", s)
		}
	})
}
