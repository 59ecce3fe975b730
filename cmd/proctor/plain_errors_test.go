package main

import (
	"strings"
	"testing"
)

// plainFailure checks that a command failed with status 1 and a sentence holding want, and
// without the storage layer's wording.
func plainFailure(t *testing.T, want string, args ...string) {
	t.Helper()
	stderr := refused(t, want, args...)
	for _, internal := range []string{"gormstore", "storage:", "record not found"} {
		if strings.Contains(stderr, internal) {
			t.Errorf("%v: stderr shows %q: %s", args, internal, stderr)
		}
	}
}

func TestUnknownIDsAreSentences(t *testing.T) {
	migratedDeployment(t, map[string]string{"one.yaml": schoolOne, "two.yaml": schoolTwo})
	// A confidential client of school 2: its id is unknown at school 1.
	out := mustRun(t, "clients", "create", "--school", "2", "--name", "Two's app",
		"--redirect-uri", "https://app.example/cb", "--confidential", "--json")
	other := strings.Split(strings.Split(out, `"client_id":"`)[1], `"`)[0]

	plainFailure(t, "no client pc_nope at school 1", "clients", "rotate-secret", "--school", "1", "pc_nope")
	plainFailure(t, "no client pc_nope at school 1", "clients", "delete", "--school", "1", "pc_nope")
	plainFailure(t, "no client "+other+" at school 1", "clients", "rotate-secret", "--school", "1", other)
	plainFailure(t, "no client "+other+" at school 1", "clients", "delete", "--school", "1", other)
	plainFailure(t, "no member with e-mail x@example.com at school 1", "members", "set-role", "--school", "1", "--email", "x@example.com", "--role", "student")
	plainFailure(t, "no member with e-mail x@example.com at school 1", "members", "reset-link", "--school", "1", "--email", "x@example.com")
	plainFailure(t, "no member with e-mail x@example.com at any school", "members", "unlock", "--email", "x@example.com")
	plainFailure(t, "no school with school_id 9", "keys", "list", "--school", "9")
	plainFailure(t, "no school with school_id 9", "clients", "delete", "--school", "9", other)

	// The client of school 2 is untouched.
	mustRun(t, "clients", "delete", "--school", "2", other)
}

func TestMembersEmailIsChecked(t *testing.T) {
	root := migratedDeployment(t, map[string]string{"one.yaml": schoolOne})
	for _, bad := range []string{"bad", "two@@example.com", "Ada <ada@example.com>", "ada@intranet", "ada lovelace@example.com", ""} {
		plainFailure(t, "is not an e-mail address", "members", "create", "--school", "1", "--email", bad, "--name", "X")
		plainFailure(t, "is not an e-mail address", "members", "invite", "--school", "1", "--email", bad+"x")
	}
	code, out, _ := runCmd(t, "", "members", "list", "--school", "1")
	if code != 0 || strings.Count(out, "\n") != 1 {
		t.Errorf("refused addresses made members:\n%s", out)
	}
	if kinds := queuedKinds(t, openDeployment(t, root)); len(kinds) != 0 {
		t.Errorf("refused invitations queued %q", kinds)
	}
	if code, out, stderr := runCmd(t, "", "members", "create", "--school", "1", "--email", "dev@localhost", "--name", "Dev"); code != 0 || !strings.Contains(out, "<dev@localhost>") {
		t.Errorf("a localhost address: %d %q %q", code, out, stderr)
	}
}

// TestMembersSetRoleKeepsAnOwner: the CLI holds to the operator API's rule (SetSchoolRoles):
// the last owner can be neither demoted nor removed, and once someone else owns the school
// they can.
func TestMembersSetRoleKeepsAnOwner(t *testing.T) {
	migratedDeployment(t, map[string]string{"one.yaml": schoolOne, "two.yaml": schoolTwo})
	for _, args := range [][]string{
		{"--school", "1", "--email", "ada@example.com", "--name", "Ada", "--role", "owner"},
		{"--school", "1", "--email", "bo@example.com", "--name", "Bo", "--role", "admin"},
		{"--school", "2", "--email", "cy@example.com", "--name", "Cy"},
	} {
		mustRun(t, append([]string{"members", "create"}, args...)...)
	}
	for _, roles := range []string{"admin", "none", "lecturer,student"} {
		plainFailure(t, "is the last owner of school 1", "members", "set-role", "--school", "1", "--email", "ada@example.com", "--role", roles)
	}
	// A second owner; then the first, no longer the last, can go.
	mustRun(t, "members", "set-role", "--school", "1", "--email", "bo@example.com", "--role", "owner,admin")
	mustRun(t, "members", "set-role", "--school", "1", "--email", "ada@example.com", "--role", "none")
	// An identity of another school joins this one through set-role.
	mustRun(t, "members", "set-role", "--school", "1", "--email", "cy@example.com", "--role", "lecturer")
	code, out, _ := runCmd(t, "", "members", "list", "--school", "1")
	if code != 0 || strings.Contains(out, "ada@example.com") || !strings.Contains(out, "owner,admin") || !strings.Contains(out, "cy@example.com") {
		t.Errorf("list:\n%s", out)
	}
}

func TestKeysRotateNeedsIDTokens(t *testing.T) {
	migratedDeployment(t, map[string]string{"one.yaml": schoolOne})
	plainFailure(t, "school 1 does not issue ID tokens", "keys", "rotate", "--school", "1")
	if code, out, _ := runCmd(t, "", "keys", "list", "--school", "1"); code != 0 || strings.Count(out, "\n") != 1 {
		t.Fatalf("a refused rotation made a key:\n%s", out)
	}
	kid := mustRun(t, "keys", "rotate", "--school", "1", "--force")
	if strings.TrimSpace(kid) == "" {
		t.Fatal("rotate --force printed no kid")
	}
	if code, out, _ := runCmd(t, "", "keys", "list", "--school", "1"); code != 0 || !strings.Contains(out, strings.TrimSpace(kid)) {
		t.Fatalf("keys list: %s", out)
	}
}
