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
	deployment(t, map[string]string{"one.yaml": schoolOne, "two.yaml": schoolTwo})
	if code, _, stderr := runCmd(t, "", "migrate"); code != 0 {
		t.Fatal(stderr)
	}
	// A confidential client of school 2: its id is unknown at school 1.
	code, out, stderr := runCmd(t, "", "clients", "create", "--school", "2", "--name", "Two's app",
		"--redirect-uri", "https://app.example/cb", "--confidential", "--json")
	if code != 0 {
		t.Fatal(stderr)
	}
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
	if code, _, stderr := runCmd(t, "", "clients", "delete", "--school", "2", other); code != 0 {
		t.Errorf("delete at its own school: %s", stderr)
	}
}

func TestMembersEmailIsChecked(t *testing.T) {
	root := deployment(t, map[string]string{"one.yaml": schoolOne})
	if code, _, stderr := runCmd(t, "", "migrate"); code != 0 {
		t.Fatal(stderr)
	}
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
	deployment(t, map[string]string{"one.yaml": schoolOne, "two.yaml": schoolTwo})
	if code, _, stderr := runCmd(t, "", "migrate"); code != 0 {
		t.Fatal(stderr)
	}
	for _, args := range [][]string{
		{"--school", "1", "--email", "ada@example.com", "--name", "Ada", "--role", "owner"},
		{"--school", "1", "--email", "bo@example.com", "--name", "Bo", "--role", "admin"},
		{"--school", "2", "--email", "cy@example.com", "--name", "Cy"},
	} {
		if code, _, stderr := runCmd(t, "", append([]string{"members", "create"}, args...)...); code != 0 {
			t.Fatal(stderr)
		}
	}
	for _, roles := range []string{"admin", "none", "lecturer,student"} {
		plainFailure(t, "is the last owner of school 1", "members", "set-role", "--school", "1", "--email", "ada@example.com", "--role", roles)
	}
	if code, _, stderr := runCmd(t, "", "members", "set-role", "--school", "1", "--email", "bo@example.com", "--role", "owner,admin"); code != 0 {
		t.Fatalf("a second owner: %s", stderr)
	}
	if code, _, stderr := runCmd(t, "", "members", "set-role", "--school", "1", "--email", "ada@example.com", "--role", "none"); code != 0 {
		t.Fatalf("removing an owner who is not the last: %s", stderr)
	}
	// An identity of another school joins this one through set-role.
	if code, _, stderr := runCmd(t, "", "members", "set-role", "--school", "1", "--email", "cy@example.com", "--role", "lecturer"); code != 0 {
		t.Fatalf("set-role of school 2's member at school 1: %s", stderr)
	}
	code, out, _ := runCmd(t, "", "members", "list", "--school", "1")
	if code != 0 || strings.Contains(out, "ada@example.com") || !strings.Contains(out, "owner,admin") || !strings.Contains(out, "cy@example.com") {
		t.Errorf("list:\n%s", out)
	}
}

func TestKeysRotateNeedsIDTokens(t *testing.T) {
	deployment(t, map[string]string{"one.yaml": schoolOne})
	if code, _, stderr := runCmd(t, "", "migrate"); code != 0 {
		t.Fatal(stderr)
	}
	plainFailure(t, "school 1 does not issue ID tokens", "keys", "rotate", "--school", "1")
	if code, out, _ := runCmd(t, "", "keys", "list", "--school", "1"); code != 0 || strings.Count(out, "\n") != 1 {
		t.Fatalf("a refused rotation made a key:\n%s", out)
	}
	code, kid, stderr := runCmd(t, "", "keys", "rotate", "--school", "1", "--force")
	if code != 0 || strings.TrimSpace(kid) == "" {
		t.Fatalf("rotate --force: %d %q %q", code, kid, stderr)
	}
	if code, out, _ := runCmd(t, "", "keys", "list", "--school", "1"); code != 0 || !strings.Contains(out, strings.TrimSpace(kid)) {
		t.Fatalf("keys list: %s", out)
	}
}
