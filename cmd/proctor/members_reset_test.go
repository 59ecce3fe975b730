package main

import (
	"slices"
	"strings"
	"testing"
)

const schoolTwo = "school_id: 2\nsubdomain: two\nname: Two\nbase_url: http://127.0.0.1:18081\n"

func TestMembersResetLink(t *testing.T) {
	root := adaAndBo(t, "student")
	refusesNonMembers(t, "reset-link")
	s := openDeployment(t, root)
	if kinds := queuedKinds(t, s); len(kinds) != 0 {
		t.Fatalf("refused reset links queued %q", kinds)
	}

	code, out, stderr := runCmd(t, "", "members", "reset-link", "--school", "1", "--email", "Ada@Example.com")
	if code != 0 || !strings.Contains(out, "queued a password-reset link for <ada@example.com> at school 1") {
		t.Fatalf("reset-link: %d %q %q", code, out, stderr)
	}
	if kinds := queuedKinds(t, s); !slices.Equal(kinds, []string{"password_reset"}) {
		t.Errorf("queued %q, want one password_reset", kinds)
	}
}

// adaAndBo lays out two schools, migrated, with ada@example.com a member of school 1 holding
// roles and bo@example.com a member of school 2 only, as refusesNonMembers expects, and returns
// the deployment's root.
func adaAndBo(t *testing.T, roles string) string {
	t.Helper()
	root := migratedDeployment(t, map[string]string{"one.yaml": schoolOne, "two.yaml": schoolTwo})
	mustRun(t, "members", "create", "--school", "1", "--email", "ada@example.com", "--name", "Ada", "--role", roles)
	mustRun(t, "members", "create", "--school", "2", "--email", "bo@example.com", "--name", "Bo")
	return root
}

// refusesNonMembers runs `members command` of school 1 for addresses that are not its members'
// (school 2's member bo among them) and for one that is no address, and wants each refused.
func refusesNonMembers(t *testing.T, command string) {
	t.Helper()
	for _, c := range []struct {
		email, want string
	}{
		{"nobody@example.com", "no member with e-mail nobody@example.com at school 1"},
		{"bo@example.com", "no member with e-mail bo@example.com at school 1"}, // a member of school 2 only
		{"not an address", "is not an e-mail address"},
	} {
		refused(t, c.want, "members", command, "--school", "1", "--email", c.email)
	}
}
