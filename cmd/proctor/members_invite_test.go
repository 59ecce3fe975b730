package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/mail"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/server/servertest"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/gormstore"
)

// openDeployment opens the deployment's SQLite database, as a server would.
func openDeployment(t *testing.T, root string) *gormstore.Store {
	t.Helper()
	s, err := gormstore.Open(t.Context(), gormstore.Config{Driver: "sqlite", DSN: filepath.Join(root, "p.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// queuedKinds takes every entry of the outbox (as the mail worker would, without sending) and
// returns their kinds.
func queuedKinds(t *testing.T, s *gormstore.Store) []string {
	t.Helper()
	entries, err := s.ClaimMail(t.Context(), time.Now().Add(time.Hour), time.Hour, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range entries {
		if e.SchoolID != 1 {
			t.Errorf("outbox entry %d is for school %d", e.ID, e.SchoolID)
		}
		kinds = append(kinds, e.Kind)
	}
	return kinds
}

func TestMembersInvite(t *testing.T) {
	root := migratedDeployment(t, map[string]string{"one.yaml": schoolOne})

	t.Run("needs exactly one of --email and --without-password", func(t *testing.T) {
		for _, args := range [][]string{
			{"members", "invite", "--school", "1"},
			{"members", "invite", "--school", "1", "--email", "x@example.com", "--without-password"},
		} {
			refused(t, "either --email or --without-password", args...)
		}
	})

	s := openDeployment(t, root)
	ctx := t.Context()
	tn, err := school.New(mustSchoolConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	sctx := school.NewContext(ctx, tn)
	if kinds := queuedKinds(t, s); len(kinds) != 0 {
		t.Fatalf("refused invitations queued %q", kinds)
	}

	t.Run("--email invites a new address", func(t *testing.T) {
		code, out, stderr := runCmd(t, "", "members", "invite", "--school", "1", "--email", " New@Example.com ", "--name", "Nora New", "--role", "lecturer,student")
		if code != 0 || !strings.Contains(out, "created and invited member") || !strings.Contains(out, "<new@example.com>") {
			t.Fatalf("invite: %d %q %q", code, out, stderr)
		}
		m, err := s.GetMemberByEmail(sctx, "new@example.com")
		if err != nil || m.PasswordHash != "" || m.Name != "Nora New" {
			t.Fatalf("the invited member: %+v %v, want one without a password", m, err)
		}
		roles, err := s.GetRoles(sctx, m.ID)
		if err != nil || !slices.Equal(roles, []storage.Role{storage.RoleLecturer, storage.RoleStudent}) {
			t.Errorf("roles: %v %v", roles, err)
		}
		if kinds := queuedKinds(t, s); !slices.Equal(kinds, []string{"invitation"}) {
			t.Errorf("outbox: %q, want one invitation", kinds)
		}
	})

	t.Run("--without-password invites every member without one", func(t *testing.T) {
		// Imported members without passwords, and one who has a password.
		for _, email := range []string{"imported-1@example.com", "imported-2@example.com"} {
			m, err := s.CreateMember(ctx, storage.Member{Email: email, Name: "Imported"})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.SetRoles(sctx, m.ID, []storage.Role{storage.RoleStudent}); err != nil {
				t.Fatal(err)
			}
		}
		if code, _, stderr := runCmd(t, "a long enough passphrase\n", "members", "create", "--school", "1",
			"--email", "has-password@example.com", "--name", "Has Password", "--password-stdin"); code != 0 {
			t.Fatal(stderr)
		}
		before, err := s.GetMemberByEmail(sctx, "has-password@example.com")
		if err != nil {
			t.Fatal(err)
		}

		code, out, stderr := runCmd(t, "", "members", "invite", "--school", "1", "--without-password")
		if code != 0 || !strings.Contains(out, "3 invitations queued") {
			t.Fatalf("invite --without-password: %d %q %q", code, out, stderr)
		}
		for _, want := range []string{"<imported-1@example.com>", "<imported-2@example.com>", "<new@example.com>"} {
			if !strings.Contains(out, want) {
				t.Errorf("output does not name %s:\n%s", want, out)
			}
		}
		if strings.Contains(out, "has-password@example.com") {
			t.Errorf("a member with a password was invited:\n%s", out)
		}
		if kinds := queuedKinds(t, s); !slices.Equal(kinds, []string{"invitation", "invitation", "invitation"}) {
			t.Errorf("outbox: %q, want three invitations", kinds)
		}
		after, err := s.GetMemberByEmail(sctx, "has-password@example.com")
		if err != nil || after.PasswordHash != before.PasswordHash {
			t.Errorf("the member with a password changed: %v", err)
		}
		// Roles are kept as they were.
		m, _ := s.GetMemberByEmail(sctx, "new@example.com")
		if roles, err := s.GetRoles(sctx, m.ID); err != nil || !slices.Equal(roles, []storage.Role{storage.RoleLecturer, storage.RoleStudent}) {
			t.Errorf("roles after the second invitation: %v %v", roles, err)
		}
	})
}

// mustSchoolConfig is schoolOne as a school file.
func mustSchoolConfig(t *testing.T) config.School {
	t.Helper()
	c := config.DefaultSchool()
	c.SchoolID, c.Subdomain, c.Name, c.BaseURL = 1, "one", "One", "http://127.0.0.1:18080"
	return c
}

// TestMembersCreateHoldsPasswordsToThePolicy: a password read from standard input is refused
// when it is common or the member's own address, and nothing is created.
func TestMembersCreateHoldsPasswordsToThePolicy(t *testing.T) {
	root := migratedDeployment(t, map[string]string{"one.yaml": schoolOne})
	for _, tc := range []struct{ pw, want string }{
		{"password1\n", "too common"},
		{"short\n", "at least 8"},
		{"cara@example.com\n", "name or e-mail"},
	} {
		code, out, stderr := runCmd(t, tc.pw, "members", "create", "--school", "1", "--email", "cara@example.com", "--name", "Cara", "--password-stdin")
		if code != exitFailure || !strings.Contains(stderr, tc.want) {
			t.Errorf("password %q: %d %q %q, want a refusal saying %q", tc.pw, code, out, stderr, tc.want)
		}
	}
	s := openDeployment(t, root)
	if _, err := s.GetMemberByEmail(t.Context(), "cara@example.com"); err == nil {
		t.Error("a refused password still created the member")
	}
}

// TestMembersInviteInTheSchoolsLanguage: a command has no browser to ask, so the invitation is
// written in the school's locale, its expiry in the school's time zone.
func TestMembersInviteInTheSchoolsLanguage(t *testing.T) {
	root := migratedDeployment(t, map[string]string{"one.yaml": schoolOne + "locale: ja\ntimezone: Asia/Tokyo\n"})
	mustRun(t, "members", "invite", "--school", "1", "--email", "nora@example.com", "--name", "Nora")
	msgs := servertest.NewPostOffice(t, openDeployment(t, root), deploymentSecret, mail.Options{MaxAttempts: 1}).Deliver()
	if len(msgs) != 1 {
		t.Fatalf("%d messages", len(msgs))
	}
	m := msgs[0]
	if m.Subject != "One への招待" || !strings.Contains(m.HTML, `<html lang="ja">`) {
		t.Errorf("subject %q, HTML:\n%s", m.Subject, m.HTML)
	}
	for part, body := range map[string]string{"text": m.Text, "html": m.HTML} {
		if !strings.Contains(body, "7 日後（") || !strings.Contains(body, " JST）") || strings.Contains(body, "The link works once") {
			t.Errorf("%s part:\n%s", part, body)
		}
	}
}
