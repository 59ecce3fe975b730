package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/storage/gormstore"
)

// TestMembersUnlock: the command writes the unlock where every server's sign-in page reads it
// (consent's TestUnlockLiftsLockout shows a server honouring it), for the member's normalised
// e-mail, and refuses an address that is no member's.
func TestMembersUnlock(t *testing.T) {
	root := deployment(t, map[string]string{"one.yaml": schoolOne})
	if code, _, stderr := runCmd(t, "", "migrate"); code != 0 {
		t.Fatal(stderr)
	}
	if code, _, stderr := runCmd(t, "", "members", "create", "--school", "1", "--email", "ada@example.com", "--name", "Ada"); code != 0 {
		t.Fatal(stderr)
	}
	if code, _, stderr := runCmd(t, "", "members", "unlock", "--email", "nobody@example.com"); code != exitFailure || !strings.Contains(stderr, "no member with e-mail") {
		t.Fatalf("unlock of an unknown e-mail: %d %s", code, stderr)
	}
	code, out, stderr := runCmd(t, "", "members", "unlock", "--email", " Ada@Example.com ")
	if code != 0 || !strings.Contains(out, "unlocked member") || !strings.Contains(out, "<ada@example.com>") {
		t.Fatalf("unlock: %d %q %q", code, out, stderr)
	}

	s, err := gormstore.Open(t.Context(), gormstore.Config{Driver: "sqlite", DSN: filepath.Join(root, "p.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if at, err := s.AccountUnlockedAt(t.Context(), login.AccountDigest("ada@example.com")); err != nil || at.IsZero() {
		t.Fatalf("no unlock recorded for ada: %v, %v", at, err)
	}
	if at, err := s.AccountUnlockedAt(t.Context(), login.AccountDigest("nobody@example.com")); err != nil || !at.IsZero() {
		t.Errorf("an unlock was recorded for an unknown e-mail: %v, %v", at, err)
	}
}
