package gormstore

import (
	"slices"
	"testing"

	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
)

// TestTokenPairGrantBackfill: migration 011 gives the pairs stored before it the school and
// sign-in methods their serialised session holds, so that a token issued before an upgrade is
// judged as before; a session without a school_id gives no school.
func TestTokenPairGrantBackfill(t *testing.T) {
	t.Run("SQLite", func(t *testing.T) {
		s, err := Open(t.Context(), Config{Driver: DriverSQLite, DSN: t.TempDir() + "/proctor.db"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		testTokenPairGrantBackfill(t, s)
	})
	t.Run("PostgreSQL", func(t *testing.T) {
		s, _ := openPostgresSchema(t)
		testTokenPairGrantBackfill(t, s)
	})
}

func testTokenPairGrantBackfill(t *testing.T, s *Store) {
	ctx := t.Context()
	migrateThrough(t, s, 10)
	if err := s.SyncSchool(ctx, 1, "a", "School A"); err != nil {
		t.Fatal(err)
	}
	for sig, data := range map[string]string{
		"full":      `{"id":"r1","session":{"school_id":1,"id_token_claims":{"amr":["pwd","otp","mfa"]}}}`,
		"password":  `{"id":"r2","session":{"school_id":1,"id_token_claims":{"amr":["pwd"]}}}`,
		"noschool":  `{"id":"r3","session":{"id_token_claims":{"amr":null}}}`,
		"other":     `{"id":"r4","session":{"school_id":2,"id_token_claims":{}}}`,
		"nosession": `{"id":"r5"}`,
	} {
		err := s.db.Exec(`INSERT INTO oauth_token_pairs (request_id, school_id, client_id, access_signature, data,
			requested_at, access_expires_at) VALUES (?, 1, 'app', ?, ?, ?, ?)`,
			sig, sig, data, dbTime(s.now()), dbTime(s.now())).Error
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	inA := school.NewContext(ctx, &school.School{SchoolID: 1})
	for sig, want := range map[string]struct {
		school int64
		amr    []string
	}{
		"full":      {1, []string{"pwd", "otp", "mfa"}},
		"password":  {1, []string{"pwd"}},
		"noschool":  {0, nil},
		"other":     {2, nil},
		"nosession": {0, nil},
	} {
		p, err := s.GetTokenPair(inA, storage.AccessToken, sig)
		if err != nil {
			t.Fatalf("%s: %v", sig, err)
		}
		if p.SchoolID != want.school || !slices.Equal(p.AMR, want.amr) {
			t.Errorf("%s: school %d, amr %q; want %d, %q", sig, p.SchoolID, p.AMR, want.school, want.amr)
		}
	}
}
