package gormstore

import (
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/school"
)

// testMigrateMemberEvents checks that migration 008 carries the members' own events of
// migration 007 into the security event log, kinds renamed, and drops their table.
func testMigrateMemberEvents(t *testing.T, s *Store) {
	ctx := t.Context()
	migrateThrough(t, s, 7)
	when := time.Date(2026, time.March, 1, 8, 0, 0, 0, time.UTC)
	for _, q := range []string{
		"INSERT INTO schools (id, subdomain, name, created_at, updated_at) VALUES (1, 'a', 'A', @at, @at), (2, 'b', 'B', @at, @at)",
		"INSERT INTO members (id, email, created_at, updated_at) VALUES (7, 'ada@example.test', @at, @at)",
	} {
		if err := s.db.Exec(q, sql.Named("at", dbTime(when))).Error; err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	old := []struct {
		school int64
		kind   string
	}{
		{1, "signed_in"}, {1, "password_changed"}, {1, "password_reset"}, {1, "invitation_accepted"},
		{1, "email_changed"}, {1, "session_ended"}, {1, "app_removed"}, {1, "profile_changed"}, {2, "signed_in"},
	}
	for i, o := range old {
		err := s.db.Exec("INSERT INTO member_events (school_id, member_id, kind, at, client_addr, user_agent, detail) VALUES (?, 7, ?, ?, '192.0.2.1', 'Browser', ?)",
			o.school, o.kind, dbTime(when.Add(time.Duration(i)*time.Minute)), "note "+o.kind).Error
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if s.db.Migrator().HasTable("member_events") {
		t.Error("member_events is still there")
	}
	got, err := s.ListSecurityEvents(school.NewContext(ctx, &school.School{SchoolID: 1}), audit.Filter{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	want := []audit.Kind{audit.KindProfileChanged, audit.KindGrantRevoked, audit.KindSessionEnded, audit.KindEmailChanged,
		audit.KindInvitationAccepted, audit.KindPasswordResetCompleted, audit.KindPasswordChanged, audit.KindSignIn}
	if len(got) != len(want) {
		t.Fatalf("%d events at school 1, want %d: %+v", len(got), len(want), got)
	}
	for i, e := range got {
		j := len(want) - 1 - i // the oldest was inserted first
		if e.Kind != want[i] || e.Result != audit.ResultSuccess || e.Actor != audit.ActorMember || e.ActorID != 7 || e.SubjectID != 7 ||
			!e.At.Equal(when.Add(time.Duration(j)*time.Minute)) || e.ClientAddr != "192.0.2.1" || e.UserAgent != "Browser" ||
			e.Detail != "note "+old[j].kind {
			t.Errorf("event %d: %+v, want kind %s", i, e, want[i])
		}
	}
	got, err = s.ListSecurityEvents(school.NewContext(ctx, &school.School{SchoolID: 2}), audit.Filter{Limit: 100})
	if err != nil || len(got) != 1 || got[0].Kind != audit.KindSignIn {
		t.Errorf("events at school 2: %+v, %v", got, err)
	}
}

func TestMigrateMemberEventsSQLite(t *testing.T) {
	s, err := Open(t.Context(), Config{Driver: DriverSQLite, DSN: filepath.Join(t.TempDir(), "m.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	testMigrateMemberEvents(t, s)
}

func TestMigrateMemberEventsPostgres(t *testing.T) {
	s, _ := openPostgresSchema(t)
	testMigrateMemberEvents(t, s)
}
