package gormstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/conformance"
)

// These tests live inside the package (storetest imports gormstore, so they cannot use it) and
// open their stores the way storetest does: SQLite always, PostgreSQL in a schema of its own
// when PROCTOR_TEST_POSTGRES_DSN is set.
func doctorBackends() []string {
	if os.Getenv(postgresDSNEnv) != "" {
		return []string{DriverSQLite, DriverPostgres}
	}
	return []string{DriverSQLite}
}

func openDoctorStore(t *testing.T, backend string) *Store {
	t.Helper()
	if backend == DriverPostgres {
		return newPostgresStore(t)
	}
	return newSQLiteStore(t)
}

// doctorFixture is a consistent deployment with rows in every table: two schools with the
// conformance data, and at school 1 a stored client with grants in each state a healthy server
// leaves them.
type doctorFixture struct {
	ctx context.Context
	// rotated: code used; A replaced by B, B used (so A revoked), C replaced B and is unused.
	a, b, c storage.TokenPair
	// revoked: code used; R1 replaced by R2 (unused); then the grant was revoked.
	r1, r2 storage.TokenPair
	// solo: one live pair whose code has already been purged.
	solo storage.TokenPair
}

const (
	doctorClient = "pc_doctor"
	doctorMember = "doctor@example.test"
)

func seedDoctor(t *testing.T, s *Store) *doctorFixture {
	t.Helper()
	importInto(t, s, 1, conformance.FullSchoolData())
	importInto(t, s, 2, conformance.FullSchoolData())
	f := &doctorFixture{ctx: school.NewContext(t.Context(), &school.School{SchoolID: 1, Subdomain: "s1"})}
	ctx := f.ctx
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	m, err := s.CreateMember(ctx, storage.Member{Email: doctorMember, Name: "Doc"})
	must(err)
	must(s.SetRoles(ctx, m.ID, []storage.Role{storage.RoleStudent}))
	_, err = s.CreateClient(ctx, storage.Client{ID: doctorClient, Kind: storage.ClientMember, Name: "Doctor app",
		TokenEndpointAuthMethod: storage.AuthMethodNone, ApplicationType: "web",
		RedirectURIs: []string{"https://app.example.test/cb"}, Scopes: []string{"openid", "account:read"}})
	must(err)

	now := time.Now()
	refreshExp := now.Add(30 * 24 * time.Hour)
	code := func(grant string, used bool) {
		t.Helper()
		must(s.CreateCodeGrant(ctx, storage.CodeGrant{Code: storage.AuthorizationCode{Signature: "code-" + grant, RequestID: grant,
			ClientID: doctorClient, MemberID: m.ID, Active: !used, Data: []byte("{}"), ExpiresAt: now.Add(5 * time.Minute)}}))
	}
	pair := func(grant, name string, replaces int64) storage.TokenPair {
		t.Helper()
		p, err := s.CreateTokenPair(ctx, storage.TokenPair{RequestID: grant, ClientID: doctorClient, MemberID: m.ID,
			AccessSignature: "at-" + name, RefreshSignature: "rt-" + name, Data: []byte("{}"), AccessExpiresAt: now.Add(2 * time.Hour),
			RefreshExpiresAt: &refreshExp, ReplacesPairID: replaces})
		must(err)
		return p
	}

	code("rotated", true)
	f.a = pair("rotated", "a", 0)
	_, err = s.RetireReplaced(ctx, f.a.ID, now)
	must(err)
	f.b = pair("rotated", "b", f.a.ID)
	_, err = s.RetireReplaced(ctx, f.b.ID, now) // revokes A
	must(err)
	f.c = pair("rotated", "c", f.b.ID)

	code("revoked", true)
	f.r1 = pair("revoked", "r1", 0)
	f.r2 = pair("revoked", "r2", f.r1.ID)
	_, err = s.RevokeGrant(ctx, "revoked", now)
	must(err)

	code("fresh", false) // issued, not exchanged yet
	f.solo = pair("solo", "solo", 0)

	must(s.CreateLoginSession(ctx, storage.LoginSession{ID: "session-hash", MemberID: m.ID, CreatedAt: now, LastSeenAt: now,
		ExpiresAt: now.Add(time.Hour)}))

	// School 1 rotated twice: k1 retired, k2 the previous key, k3 current. School 2 has one.
	for i, kid := range []string{"k1", "k2", "k3"} {
		k := storage.SigningKey{KID: kid, Algorithm: "ES256", PublicJWK: []byte("{}"), PrivateKeyEncrypted: []byte("sealed-" + kid),
			CreatedAt: now.Add(time.Duration(i-3) * time.Hour)}
		if kid == "k1" {
			k.RetiredAt = &now
		}
		must(s.CreateSigningKey(ctx, k))
	}
	ctx2 := school.NewContext(t.Context(), &school.School{SchoolID: 2, Subdomain: "s2"})
	must(s.CreateSigningKey(ctx2, storage.SigningKey{KID: "k-two", Algorithm: "ES256", PublicJWK: []byte("{}"),
		PrivateKeyEncrypted: []byte("sealed-k-two")}))
	return f
}

// opened lists the keys openSealed was asked to open.
type opened struct{ kids []string }

// openSealed stands in for the keys package: a key "opens" when its ciphertext is the one the
// fixture stored.
func (o *opened) open(_ context.Context, schoolID int64, k storage.SigningKey) error {
	o.kids = append(o.kids, k.KID)
	if string(k.PrivateKeyEncrypted) != "sealed-"+k.KID {
		return errors.New("does not decrypt with the configured secret")
	}
	return nil
}

func doctorOptions(o *opened) storage.DoctorOptions {
	return storage.DoctorOptions{SchoolIDs: []int64{1, 2}, OpenKey: o.open}
}

// plant runs statements with foreign keys unenforced on one connection, the way a hand edit
// with the sqlite3 shell or a PostgreSQL restore with --disable-triggers would, and re-enables
// them before the connection goes back to the pool.
func plant(t *testing.T, s *Store, stmts ...string) {
	t.Helper()
	ctx := t.Context()
	conn, err := s.sqlDB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	off, on := "PRAGMA foreign_keys = OFF", "PRAGMA foreign_keys = ON"
	if s.driver == DriverPostgres {
		off, on = "SET session_replication_role = replica", "RESET session_replication_role"
	}
	if _, err := conn.ExecContext(ctx, off); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if _, err := conn.ExecContext(ctx, on); err != nil {
			t.Error(err)
		}
	}()
	for _, stmt := range stmts {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
}

func checksOf(fs []storage.Finding) []string {
	var names []string
	for _, f := range fs {
		names = append(names, f.Check)
	}
	return names
}

func TestDoctorCleanStoreReportsNothing(t *testing.T) {
	for _, backend := range doctorBackends() {
		t.Run(backend, func(t *testing.T) {
			s := openDoctorStore(t, backend)
			seedDoctor(t, s)
			o := &opened{}
			got, err := s.Check(t.Context(), doctorOptions(o))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 0 {
				t.Fatalf("a consistent store has findings: %+v", got)
			}
			// Every published key was tried; the retired one was not.
			slices.Sort(o.kids)
			if want := []string{"k-two", "k2", "k3"}; !slices.Equal(o.kids, want) {
				t.Errorf("opened %v, want %v", o.kids, want)
			}
			// An empty database, migrated, is consistent too.
			if got, err := openDoctorStore(t, backend).Check(t.Context(), storage.DoctorOptions{}); err != nil || len(got) != 0 {
				t.Errorf("empty store: %+v, %v", got, err)
			}
		})
	}
}

func TestDoctorFindsEachInconsistency(t *testing.T) {
	type plantCase struct {
		check string
		// plant breaks the fixture; its statements run with foreign keys off.
		plant func(f *doctorFixture) []string
		// schools overrides the configured school ids.
		schools []int64
		// example is one of the examples the finding must give ("" to skip).
		example string
		count   int64
		// also lists checks the same damage may set off besides check.
		also []string
	}
	id := func(p storage.TokenPair) string { return fmt.Sprint(p.ID) }
	const firstLecture = "(SELECT MIN(id) FROM lectures WHERE school_id = 1)"
	const draftCourse = "(SELECT id FROM courses WHERE school_id = 1 AND slug = 'draft')"
	cases := []plantCase{
		{check: "schema.pending_migrations", count: 1, example: "002_login_sessions",
			plant: func(*doctorFixture) []string { return []string{"DELETE FROM schema_migrations WHERE version = '002'"} }},
		{check: "schema.unknown_migrations", count: 1, example: "999_from_the_future",
			plant: func(*doctorFixture) []string {
				return []string{"INSERT INTO schema_migrations (version, name, applied_at) VALUES ('999', 'from_the_future', '2030-01-01 00:00:00')"}
			}},
		{check: "schools.missing_row", count: 1, example: "school 3", schools: []int64{1, 2, 3}},
		{check: "orphans.oauth_token_pairs.member_id", count: 1,
			plant: func(f *doctorFixture) []string {
				return []string{"UPDATE oauth_token_pairs SET member_id = 999999 WHERE id = " + id(f.solo)}
			}},
		{check: "orphans.oauth_token_pairs.replaces_pair_id", count: 1,
			plant: func(f *doctorFixture) []string {
				return []string{"UPDATE oauth_token_pairs SET replaces_pair_id = 999999 WHERE id = " + id(f.c)}
			}},
		{check: "orphans.oauth_authorization_codes.school_id", count: 1, example: "grant fresh",
			plant: func(*doctorFixture) []string {
				return []string{"UPDATE oauth_authorization_codes SET school_id = 99 WHERE request_id = 'fresh'"}
			}},
		{check: "orphans.login_sessions.member_id", count: 1, example: "school 1 member 999999",
			plant: func(*doctorFixture) []string { return []string{"UPDATE login_sessions SET member_id = 999999"} }},
		{check: "orphans.enrollments.member_id", count: 1,
			plant: func(*doctorFixture) []string {
				return []string{"UPDATE enrollments SET member_id = 999999 WHERE id = (SELECT MIN(id) FROM enrollments)"}
			}},
		{check: "orphans.lecture_progress.lecture_id", count: 1, example: "member 1 lecture 999999",
			plant: func(*doctorFixture) []string {
				return []string{"UPDATE lecture_progress SET lecture_id = 999999 WHERE school_id = 1 AND member_id = 1 AND lecture_id = " + firstLecture}
			}},
		{check: "orphans.lectures.section_id", count: 1,
			plant: func(*doctorFixture) []string {
				return []string{"UPDATE lectures SET section_id = 999999 WHERE id = " + firstLecture}
			}},
		{check: "curriculum.lecture_in_other_course", count: 1, also: []string{"curriculum.progress_in_other_course"},
			plant: func(*doctorFixture) []string {
				return []string{"UPDATE lectures SET course_id = " + draftCourse + " WHERE id = " + firstLecture}
			}},
		{check: "curriculum.progress_in_other_course", count: 1,
			plant: func(*doctorFixture) []string {
				return []string{"UPDATE lecture_progress SET course_id = " + draftCourse + " WHERE school_id = 1 AND lecture_id = " + firstLecture}
			}},
		{check: "oauth.used_code_without_pairs", count: 1, example: "school 1 grant fresh",
			plant: func(*doctorFixture) []string {
				return []string{"UPDATE oauth_authorization_codes SET active = FALSE WHERE request_id = 'fresh'"}
			}},
		{check: "oauth.active_code_with_pairs", count: 1, example: "school 1 grant rotated",
			plant: func(*doctorFixture) []string {
				return []string{"UPDATE oauth_authorization_codes SET active = TRUE WHERE request_id = 'rotated'"}
			}},
		{check: "oauth.live_pairs_in_revoked_grant", count: 1,
			plant: func(f *doctorFixture) []string {
				return []string{"UPDATE oauth_token_pairs SET revoked_at = NULL WHERE id = " + id(f.r1)}
			}},
		{check: "oauth.replaced_pair_still_live", count: 1,
			plant: func(f *doctorFixture) []string {
				return []string{"UPDATE oauth_token_pairs SET revoked_at = NULL WHERE id = " + id(f.a)}
			}},
		{check: "oauth.replaces_pair_of_other_grant", count: 1,
			plant: func(f *doctorFixture) []string {
				return []string{"UPDATE oauth_token_pairs SET replaces_pair_id = " + id(f.r1) + " WHERE id = " + id(f.solo)}
			}},
		{check: "oauth.grant_mixed_identity", count: 1, example: "grant rotated",
			plant: func(f *doctorFixture) []string {
				return []string{"UPDATE oauth_token_pairs SET client_id = 'another-app' WHERE id = " + id(f.c)}
			}},
		{check: "oauth.duplicate_signatures", count: 2,
			plant: func(f *doctorFixture) []string {
				return []string{"UPDATE oauth_token_pairs SET access_signature = 'rt-a' WHERE id = " + id(f.solo)}
			}},
		{check: "oauth.live_pairs_of_deleted_client", count: 3, // B, C and solo; A and the revoked grant are not live
			plant: func(*doctorFixture) []string {
				return []string{"DELETE FROM oauth_clients WHERE id = '" + doctorClient + "'"}
			}},
		{check: "signing_keys.no_current_key", count: 1, example: "school 2",
			plant: func(*doctorFixture) []string {
				return []string{"UPDATE signing_keys SET retired_at = '2030-01-01 00:00:00' WHERE school_id = 2"}
			}},
		{check: "signing_keys.too_many_published", count: 1, example: "school 1",
			plant: func(*doctorFixture) []string {
				return []string{"UPDATE signing_keys SET retired_at = NULL WHERE kid = 'k1'"}
			}},
		{check: "signing_keys.unusable", count: 1, example: "school 1 key k3: does not decrypt with the configured secret",
			plant: func(*doctorFixture) []string {
				return []string{"UPDATE signing_keys SET private_key_encrypted = private_key_encrypted || private_key_encrypted WHERE kid = 'k3'"}
			}},
	}
	for _, backend := range doctorBackends() {
		t.Run(backend, func(t *testing.T) {
			for _, tc := range cases {
				t.Run(tc.check, func(t *testing.T) {
					if backend == DriverPostgres {
						t.Parallel()
					}
					s := openDoctorStore(t, backend)
					f := seedDoctor(t, s)
					if tc.plant != nil {
						plant(t, s, tc.plant(f)...)
					}
					opts := doctorOptions(&opened{})
					if tc.schools != nil {
						opts.SchoolIDs = tc.schools
					}
					got, err := s.Check(t.Context(), opts)
					if err != nil {
						t.Fatal(err)
					}
					var found *storage.Finding
					for i := range got {
						switch {
						case got[i].Check == tc.check:
							found = &got[i]
						case !slices.Contains(tc.also, got[i].Check):
							t.Errorf("unexpected finding %+v", got[i])
						}
					}
					if found == nil {
						t.Fatalf("no %s finding; got %v", tc.check, checksOf(got))
					}
					if found.Count != tc.count || len(found.Examples) == 0 || found.Detail == "" {
						t.Errorf("finding %+v, want count %d with examples and a detail", *found, tc.count)
					}
					if tc.example != "" && !slices.Contains(found.Examples, tc.example) {
						t.Errorf("examples %q lack %q", found.Examples, tc.example)
					}
					for _, ex := range found.Examples {
						if strings.Contains(ex, "at-") || strings.Contains(ex, "rt-") || strings.Contains(ex, "session-hash") ||
							strings.Contains(ex, "code-") || strings.Contains(ex, "sealed-") {
							t.Errorf("example %q shows a signature, hash or key", ex)
						}
					}
				})
			}
		})
	}
}

// TestDoctorExamplesAreBounded: a finding of many rows counts them all and names only the first
// few, lowest first.
func TestDoctorExamplesAreBounded(t *testing.T) {
	s := newSQLiteStore(t)
	if err := s.SyncSchool(t.Context(), 1, "s1", "s1"); err != nil {
		t.Fatal(err)
	}
	stmts := []string{}
	for i := 1; i <= 25; i++ {
		stmts = append(stmts, fmt.Sprintf(
			"INSERT INTO login_sessions (id, school_id, member_id, created_at, last_seen_at, expires_at) VALUES ('s%d', 1, %d, '2030-01-01', '2030-01-01', '2030-01-02')", i, 100+i))
	}
	plant(t, s, stmts...)
	got, err := s.Check(t.Context(), storage.DoctorOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Count != 25 || len(got[0].Examples) != storage.MaxDoctorExamples ||
		got[0].Examples[0] != "school 1 member 101" || got[0].Examples[9] != "school 1 member 110" {
		t.Fatalf("findings %+v", got)
	}
}

// TestDoctorWithoutSchema: a database no migration ever ran on has every migration pending, and
// nothing else is checked.
func TestDoctorWithoutSchema(t *testing.T) {
	s, err := Open(t.Context(), Config{Driver: DriverSQLite, DSN: t.TempDir() + "/empty.db"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.Check(t.Context(), storage.DoctorOptions{SchoolIDs: []int64{1}})
	if err != nil {
		t.Fatal(err)
	}
	ms, _ := loadMigrations(migrationFiles)
	if len(got) != 1 || got[0].Check != "schema.pending_migrations" || got[0].Count != int64(len(ms)) {
		t.Fatalf("findings %+v", got)
	}
}

// TestDoctorCoversEveryForeignKey compares doctorRelations with the foreign keys of the migrated
// schema, so that a migration adding a reference adds its orphan check too.
func TestDoctorCoversEveryForeignKey(t *testing.T) {
	s := newSQLiteStore(t)
	var rows []struct {
		Child, From, Parent, To string
		ID, Seq                 int
	}
	err := s.db.Raw(`SELECT m.name AS child, f."from" AS "from", f."table" AS parent, f."to" AS "to", f.id AS id, f.seq AS seq
FROM sqlite_master m JOIN pragma_foreign_key_list(m.name) f
WHERE m.type = 'table' ORDER BY m.name, f.id, f.seq`).Scan(&rows).Error
	if err != nil {
		t.Fatal(err)
	}
	key := func(r relation) string {
		return fmt.Sprintf("%s(%s) -> %s(%s)", r.child, strings.Join(r.cols, ","), r.parent, strings.Join(r.pcols, ","))
	}
	byID := map[string]*relation{}
	var order []string
	for _, r := range rows {
		k := fmt.Sprintf("%s#%d", r.Child, r.ID)
		if byID[k] == nil {
			byID[k] = &relation{child: r.Child, parent: r.Parent}
			order = append(order, k)
		}
		byID[k].cols = append(byID[k].cols, r.From)
		byID[k].pcols = append(byID[k].pcols, r.To)
	}
	var schema, covered []string
	for _, k := range order {
		schema = append(schema, key(*byID[k]))
	}
	for _, r := range doctorRelations {
		covered = append(covered, key(r))
	}
	slices.Sort(schema)
	slices.Sort(covered)
	if !slices.Equal(schema, covered) {
		for _, k := range schema {
			if !slices.Contains(covered, k) {
				t.Errorf("foreign key %s has no orphan check", k)
			}
		}
		for _, k := range covered {
			if !slices.Contains(schema, k) {
				t.Errorf("orphan check %s matches no foreign key", k)
			}
		}
	}
	names := map[string]bool{}
	for _, r := range doctorRelations {
		if names[r.check()] {
			t.Errorf("two relations are both checked as %s", r.check())
		}
		names[r.check()] = true
	}
}
