package main

import (
	"strings"
	"testing"

	"github.com/proctorhq/proctor/login"
)

// TestMembersUnlock: the command writes the unlock where every server's sign-in page reads it
// (consent's TestUnlockLiftsLockout shows a server honouring it), for the member's normalised
// e-mail, and refuses an address that is no member's.
func TestMembersUnlock(t *testing.T) {
	root := migratedDeployment(t, map[string]string{"one.yaml": schoolOne})
	mustRun(t, "members", "create", "--school", "1", "--email", "ada@example.com", "--name", "Ada")
	refused(t, "no member with e-mail", "members", "unlock", "--email", "nobody@example.com")
	code, out, stderr := runCmd(t, "", "members", "unlock", "--email", " Ada@Example.com ")
	if code != 0 || !strings.Contains(out, "unlocked member") || !strings.Contains(out, "<ada@example.com>") {
		t.Fatalf("unlock: %d %q %q", code, out, stderr)
	}

	s := openDeployment(t, root)
	if at, err := s.AccountUnlockedAt(t.Context(), login.AccountDigest("ada@example.com")); err != nil || at.IsZero() {
		t.Fatalf("no unlock recorded for ada: %v, %v", at, err)
	}
	if at, err := s.AccountUnlockedAt(t.Context(), login.AccountDigest("nobody@example.com")); err != nil || !at.IsZero() {
		t.Errorf("an unlock was recorded for an unknown e-mail: %v, %v", at, err)
	}
}
