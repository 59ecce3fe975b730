package password

import (
	"errors"
	"strings"
	"testing"
)

// cheap keeps the tests fast; the parameters are part of the hash, so Verify reads them back.
var cheap = Params{MemoryKiB: 64, Time: 1, Threads: 1}

func TestHashVerify(t *testing.T) {
	h, err := Hash("correct horse", cheap)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=64,t=1,p=1$") {
		t.Fatalf("unexpected PHC prefix: %s", h)
	}
	if err := Verify("correct horse", h); err != nil {
		t.Fatalf("Verify(right) = %v", err)
	}
	if err := Verify("correct horsE", h); !errors.Is(err, ErrMismatch) {
		t.Fatalf("Verify(wrong) = %v, want ErrMismatch", err)
	}
	h2, _ := Hash("correct horse", cheap)
	if h == h2 {
		t.Fatal("two hashes of one password share a salt")
	}
	if !IsHash(h) {
		t.Fatal("IsHash(own hash) = false")
	}
	if !HashedWith(h, cheap) {
		t.Fatal("HashedWith(own hash, its params) = false")
	}
	if HashedWith(h, Params{MemoryKiB: 64, Time: 2, Threads: 1}) {
		t.Fatal("HashedWith(own hash, other params) = true")
	}
}

func TestMalformedHashes(t *testing.T) {
	for _, h := range []string{
		"",
		"plain",
		"$argon2i$v=19$m=64,t=1,p=1$c2FsdHNhbHQ$a2V5a2V5a2V5a2V5a2V5aw",
		"$argon2id$v=18$m=64,t=1,p=1$c2FsdHNhbHQ$a2V5a2V5a2V5a2V5a2V5aw",
		"$argon2id$v=19$m=99999999,t=1,p=1$c2FsdHNhbHQ$a2V5a2V5a2V5a2V5a2V5aw",
		"$argon2id$v=19$m=64,t=1,p=1$!!$a2V5a2V5a2V5a2V5a2V5aw",
		"$argon2id$v=19$m=64,t=1,p=1$c2FsdHNhbHQ$",
	} {
		if IsHash(h) {
			t.Errorf("IsHash(%q) = true", h)
		}
		if err := Verify("x", h); !errors.Is(err, ErrMalformedHash) {
			t.Errorf("Verify(%q) = %v, want ErrMalformedHash", h, err)
		}
	}
}

func TestTooLong(t *testing.T) {
	long := strings.Repeat("a", MaxLength+1)
	if _, err := Hash(long, cheap); !errors.Is(err, ErrTooLong) {
		t.Fatalf("Hash(long) = %v", err)
	}
	h, _ := Hash("a", cheap)
	if err := Verify(long, h); !errors.Is(err, ErrMismatch) {
		t.Fatalf("Verify(long) = %v", err)
	}
}

func TestVerifyDummyAlwaysFails(t *testing.T) {
	if err := VerifyDummy("proctor-dummy-password"); !errors.Is(err, ErrMismatch) {
		t.Fatalf("VerifyDummy = %v", err)
	}
}

func FuzzVerify(f *testing.F) {
	h, _ := Hash("seed", cheap)
	f.Add("seed", h)
	f.Add("x", "$argon2id$v=19$m=64,t=1,p=1$c2FsdHNhbHQ$a2V5a2V5a2V5a2V5a2V5aw")
	f.Add("seed", bcryptHash(f, "seed", "$2y$"))
	f.Add(importedPW, pbkdf2Vectors[0])
	f.Add(importedPW, pbkdf2Vectors[1])
	f.Fuzz(func(t *testing.T, pw, hash string) {
		_ = Verify(pw, hash) // must not panic or allocate unboundedly
	})
}
