package gormstore

import (
	"slices"
	"strconv"
	"sync"
	"testing"
	"testing/fstest"

	"gorm.io/gorm/schema"
)

func TestSQLiteDDL(t *testing.T) {
	tests := []struct {
		name, pg, want string
	}{
		{"serial key", "id BIGSERIAL PRIMARY KEY,", "id INTEGER PRIMARY KEY AUTOINCREMENT,"},
		{"serial key, spaced", "id BIGSERIAL  PRIMARY\n KEY", "id INTEGER PRIMARY KEY AUTOINCREMENT"},
		{"timestamptz", "created_at TIMESTAMPTZ NOT NULL, read_at TIMESTAMPTZ", "created_at DATETIME NOT NULL, read_at DATETIME"},
		{"bytea", "k BYTEA NOT NULL", "k BLOB NOT NULL"},
		{"jsonb", "doc JSONB NOT NULL DEFAULT '{}'", "doc TEXT NOT NULL DEFAULT '{}'"},
		{"unchanged vocabulary", "a BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE, b BOOLEAN DEFAULT FALSE", "a BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE, b BOOLEAN DEFAULT FALSE"},
		{"index order", "CREATE INDEX i ON p (school_id, created_at DESC, id DESC)", "CREATE INDEX i ON p (school_id, created_at DESC, id DESC)"},
		{"whole words only", "timestamptz_note TEXT, my_bytea_col TEXT", "timestamptz_note TEXT, my_bytea_col TEXT"},
		{"comments dropped", "a TEXT -- a BYTEA comment: SERIAL now()\n", "a TEXT \n"},
		{"dashes in strings kept", "a TEXT DEFAULT '--'", "a TEXT DEFAULT '--'"},
	}
	for _, tc := range tests {
		got, err := sqliteDDL(tc.pg)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}

	for _, bad := range []string{
		"id SERIAL PRIMARY KEY",
		"n BIGSERIAL",
		"x TEXT DEFAULT 'a'::text",
		"CREATE FUNCTION f() RETURNS int AS $$ SELECT 1 $$ LANGUAGE sql",
		"ALTER TABLE t ADD CONSTRAINT c UNIQUE (a)",
		"t TIMESTAMP WITH TIME ZONE",
		"t TIMESTAMPTZ NOT NULL DEFAULT now()",
	} {
		if got, err := sqliteDDL(bad); err == nil {
			t.Errorf("sqliteDDL(%q) = %q, want an error", bad, got)
		}
	}
}

func TestSplitStatements(t *testing.T) {
	got := splitStatements("-- header; with a semicolon\nCREATE TABLE a (x TEXT DEFAULT ';');\n\n  ;CREATE INDEX b ON a (x) -- trailing\n")
	want := []string{"CREATE TABLE a (x TEXT DEFAULT ';')", "CREATE INDEX b ON a (x)"}
	if !slices.Equal(got, want) {
		t.Errorf("splitStatements = %q, want %q", got, want)
	}
}

func TestLoadMigrations(t *testing.T) {
	ms, err := loadMigrations(migrationFiles)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) == 0 || ms[0].String() != "001_initial" {
		t.Fatalf("embedded migrations: %v", ms)
	}
	// Every migration translates.
	for _, m := range ms {
		if _, err := sqliteDDL(m.sql); err != nil {
			t.Errorf("%s: %v", m, err)
		}
	}

	ordered, err := loadMigrations(fstest.MapFS{
		"migrations/1000_later.sql": {Data: []byte("SELECT 3")},
		"migrations/002_second.sql": {Data: []byte("SELECT 2")},
		"migrations/001_first.sql":  {Data: []byte("SELECT 1")},
	})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range ordered {
		names = append(names, m.String())
	}
	if !slices.Equal(names, []string{"001_first", "002_second", "1000_later"}) {
		t.Errorf("order %v", names)
	}
	for name, files := range map[string]fstest.MapFS{
		"bad name":          {"migrations/first.sql": {Data: []byte("SELECT 1")}},
		"duplicate version": {"migrations/001_a.sql": {}, "migrations/0001_b.sql": {}},
		"none":              {},
	} {
		if _, err := loadMigrations(files); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// testMigrate migrates an empty database through two stores at once, as two processes starting
// together would.
func testMigrate(t *testing.T, s, other *Store) {
	ctx := t.Context()
	pending, err := s.PendingMigrations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Every embedded migration is pending on an empty database, in version order.
	ms, err := loadMigrations(migrationFiles)
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, m := range ms {
		all = append(all, m.String())
	}
	if len(all) < 2 || all[0] != "001_initial" || !slices.Equal(pending, all) {
		t.Errorf("pending before Migrate: %v", pending)
	}

	var (
		wg      sync.WaitGroup
		applied [2][]string
		errs    [2]error
	)
	for i, st := range []*Store{s, other} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			applied[i], errs[i] = st.Migrate(ctx)
		}()
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil {
		t.Fatalf("concurrent Migrate: %v, %v", errs[0], errs[1])
	}
	// Each migration was applied once, by one store or the other, in order.
	got := append(applied[0], applied[1]...)
	slices.Sort(got)
	if !slices.Equal(got, all) {
		t.Errorf("concurrent Migrate applied %v and %v, want each of %v once", applied[0], applied[1], all)
	}

	again, err := s.Migrate(ctx)
	if err != nil || len(again) != 0 {
		t.Errorf("second Migrate: %v, %v", again, err)
	}
	pending, err = s.PendingMigrations(ctx)
	if err != nil || len(pending) != 0 {
		t.Errorf("pending after Migrate: %v, %v", pending, err)
	}
	var row schemaMigrationRow
	if err := s.db.Where("version = ?", "001").Take(&row).Error; err != nil || row.Name != "initial" || row.AppliedAt.IsZero() {
		t.Errorf("ledger row %+v, %v", row, err)
	}
}

func TestMigrateSQLite(t *testing.T) {
	path := t.TempDir() + "/m.db"
	open := func() *Store {
		s, err := Open(t.Context(), Config{Driver: DriverSQLite, DSN: path})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	testMigrate(t, open(), open())
}

func TestMigratePostgres(t *testing.T) {
	s, dsn := openPostgresSchema(t)
	other, err := Open(t.Context(), Config{Driver: DriverPostgres, DSN: dsn, MaxOpenConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = other.Close() })
	testMigrate(t, s, other)
}

// TestModelsMatchSchema checks that the row structs and the migrated tables agree, column for
// column, so that neither can drift from the other.
func TestModelsMatchSchema(t *testing.T) {
	for name, open := range map[string]func(testing.TB) *Store{"sqlite": newSQLiteStore, "postgres": newPostgresStore} {
		t.Run(name, func(t *testing.T) {
			s := open(t)
			m := s.db.Migrator()
			for _, model := range allModels {
				sch, err := schema.Parse(model, &sync.Map{}, s.db.NamingStrategy)
				if err != nil {
					t.Fatal(err)
				}
				if !m.HasTable(model) {
					t.Errorf("no table %s", sch.Table)
					continue
				}
				fields := map[string]bool{}
				for _, f := range sch.Fields {
					if f.DBName == "" {
						continue
					}
					fields[f.DBName] = true
					if !m.HasColumn(model, f.DBName) {
						t.Errorf("%s.%s (field %s) is not in the schema", sch.Table, f.DBName, f.Name)
					}
				}
				cols, err := m.ColumnTypes(model)
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range cols {
					if !fields[c.Name()] {
						t.Errorf("column %s.%s has no field in %T", sch.Table, c.Name(), model)
					}
				}
			}
		})
	}
}

// allModels lists every row struct.
var allModels = []any{
	&schoolRow{}, &memberRow{}, &memberRoleRow{}, &courseRow{}, &sectionRow{}, &lectureRow{},
	&enrollmentRow{}, &progressRow{}, &digitalProductRow{}, &productHoldingRow{},
	&consultingServiceRow{}, &consultingServiceCourseRow{}, &consultingSlotRow{},
	&consultingMeetingRow{}, &eventRow{}, &eventRegistrationRow{}, &paymentRow{}, &notificationRow{},
	&notificationSubscriptionRow{}, &membershipPlanRow{}, &subscriptionRow{}, &couponRow{}, &postRow{},
	&commentRow{}, &lecturerRow{}, &lecturerCourseRow{}, &formRow{}, &formSubmissionRow{}, &pageRow{},
	&oauthClientRow{}, &authorizationCodeRow{}, &pkceSessionRow{}, &oidcSessionRow{}, &tokenPairRow{},
	&signingKeyRow{}, &loginSessionRow{}, &schemaMigrationRow{}, &storedFileRow{},
	&accountLinkRow{}, &securityEventRow{},
}

// migrateThrough applies the embedded migrations up to version last, for a test of what a later
// migration does to the rows it finds.
func migrateThrough(t *testing.T, s *Store, last int) {
	t.Helper()
	ms, err := loadMigrations(migrationFiles)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if n, _ := strconv.Atoi(m.version); n > last {
			break
		}
		if _, err := s.applyMigration(t.Context(), m); err != nil {
			t.Fatal(err)
		}
	}
}
