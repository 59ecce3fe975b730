package gormstore

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"
)

// Migrations are the SQL files in migrations/, named NNN_name.sql and applied in version order,
// each in its own transaction, and recorded in schema_migrations. A file is never edited once
// released: a change is a new file.
//
// They are written once, in PostgreSQL, using only this vocabulary, which sqliteDDL translates:
//
//	PostgreSQL                SQLite
//	BIGSERIAL PRIMARY KEY     INTEGER PRIMARY KEY AUTOINCREMENT (a rowid alias, never reused)
//	TIMESTAMPTZ               DATETIME (the driver parses DATETIME columns back into time.Time)
//	BYTEA                     BLOB
//	JSONB                     TEXT
//	BIGINT, INTEGER, TEXT, BOOLEAN, TRUE, FALSE, PRIMARY KEY, UNIQUE, CHECK, FOREIGN KEY,
//	REFERENCES ... ON DELETE CASCADE | SET NULL, CREATE INDEX (col [DESC], ...)   unchanged
//
// The PostgreSQL-only constructs most likely to slip in (:: casts, dollar quoting, SERIAL outside
// BIGSERIAL PRIMARY KEY, now(), TIMESTAMP WITH TIME ZONE, ALTER TABLE ... ADD CONSTRAINT) make
// the translation fail, and with it the SQLite tests, rather than being mistranslated; anything
// else is caught by those tests running every migration. Statements are separated by semicolons
// (outside string literals); "--" comments are dropped before translation.

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one versioned SQL file.
type migration struct {
	version string // "001"
	name    string // "initial"
	sql     string // PostgreSQL
}

func (m migration) String() string { return m.version + "_" + m.name }

var migrationName = regexp.MustCompile(`^([0-9]{3,})_([a-z0-9_]+)\.sql$`)

// loadMigrations reads the embedded files in version order.
func loadMigrations(files fs.FS) ([]migration, error) {
	names, err := fs.Glob(files, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var ms []migration
	seen := map[string]string{}
	for _, path := range names {
		base := path[strings.LastIndexByte(path, '/')+1:]
		m := migrationName.FindStringSubmatch(base)
		if m == nil {
			return nil, fmt.Errorf("gormstore: migration file %q is not named NNN_name.sql", base)
		}
		n, _ := strconv.Atoi(m[1])
		key := strconv.Itoa(n)
		if other, dup := seen[key]; dup {
			return nil, fmt.Errorf("gormstore: migrations %q and %q share version %s", other, base, key)
		}
		seen[key] = base
		body, err := fs.ReadFile(files, path)
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: m[1], name: m[2], sql: string(body)})
	}
	if len(ms) == 0 {
		return nil, errNoMigrations
	}
	// By number, so that 1000 follows 999.
	sort.Slice(ms, func(i, j int) bool {
		a, _ := strconv.Atoi(ms[i].version)
		b, _ := strconv.Atoi(ms[j].version)
		return a < b
	})
	return ms, nil
}

// schemaMigrationsDDL creates the ledger of applied migrations (PostgreSQL, translated like the
// rest).
const schemaMigrationsDDL = `CREATE TABLE IF NOT EXISTS schema_migrations (
    version     TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    applied_at  TIMESTAMPTZ NOT NULL
)`

// migrateLockKey is the PostgreSQL advisory lock that serialises Migrate between processes (any
// constant works; this one spells "proctor" in ASCII).
const migrateLockKey = 0x70726f63746f72

type schemaMigrationRow struct {
	Version   string `gorm:"primaryKey"`
	Name      string
	AppliedAt time.Time
}

func (schemaMigrationRow) TableName() string { return "schema_migrations" }

// Migrate applies the pending migrations in order, each in its own transaction, and returns the
// ones it applied ("001_initial" ...). It is idempotent and safe to run from two processes at
// once: on PostgreSQL each transaction first takes an advisory lock and re-checks the ledger; on
// SQLite the transaction holds the database's write lock from its start.
func (s *Store) Migrate(ctx context.Context) ([]string, error) {
	ms, err := loadMigrations(migrationFiles)
	if err != nil {
		return nil, err
	}
	applied := []string{}
	for _, m := range ms {
		did, err := s.applyMigration(ctx, m)
		if err != nil {
			return applied, err
		}
		if did {
			applied = append(applied, m.String())
		}
	}
	return applied, nil
}

// applyMigration applies m unless the ledger already has it.
func (s *Store) applyMigration(ctx context.Context, m migration) (applied bool, err error) {
	stmts, err := s.statements(m.sql)
	if err != nil {
		return false, fmt.Errorf("gormstore: migration %s: %w", m, err)
	}
	ledger, err := s.statements(schemaMigrationsDDL)
	if err != nil {
		return false, err
	}
	op := "migrate " + m.String()
	err = s.inTx(ctx, op, func(tx *gorm.DB) error {
		if s.driver == DriverPostgres {
			if err := tx.Exec("SELECT pg_advisory_xact_lock(?)", int64(migrateLockKey)).Error; err != nil {
				return wrap(op+": lock", err)
			}
		}
		if err := tx.Exec(ledger[0]).Error; err != nil {
			return wrap(op+": create schema_migrations", err)
		}
		var n int64
		if err := tx.Model(&schemaMigrationRow{}).Where("version = ?", m.version).Count(&n).Error; err != nil {
			return wrap(op, err)
		}
		if n > 0 {
			return nil
		}
		for i, stmt := range stmts {
			if err := tx.Exec(stmt).Error; err != nil {
				return wrap(fmt.Sprintf("%s: statement %d", op, i+1), err)
			}
		}
		applied = true
		return wrap(op+": record", tx.Exec(
			"INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
			m.version, m.name, dbTime(s.now())).Error)
	})
	if err != nil {
		return false, err
	}
	return applied, nil
}

// PendingMigrations lists the migrations Migrate would apply ("002_payments" ...), in order.
func (s *Store) PendingMigrations(ctx context.Context) ([]string, error) {
	ms, err := loadMigrations(migrationFiles)
	if err != nil {
		return nil, err
	}
	db := s.conn(ctx)
	done := map[string]bool{}
	if db.Migrator().HasTable(&schemaMigrationRow{}) {
		var rows []schemaMigrationRow
		if err := db.Find(&rows).Error; err != nil {
			return nil, wrap("pending migrations", err)
		}
		for _, r := range rows {
			done[r.Version] = true
		}
	} else if err := s.Ping(ctx); err != nil {
		// HasTable swallows errors; tell "no ledger yet" from "no database".
		return nil, err
	}
	pending := []string{}
	for _, m := range ms {
		if !done[m.version] {
			pending = append(pending, m.String())
		}
	}
	return pending, nil
}

// statements splits a migration into statements in the store's dialect.
func (s *Store) statements(pg string) ([]string, error) {
	if s.driver == DriverSQLite {
		lite, err := sqliteDDL(pg)
		if err != nil {
			return nil, err
		}
		pg = lite
	}
	return splitStatements(pg), nil
}

var (
	ddlRewrites = []struct {
		re  *regexp.Regexp
		out string
	}{
		{regexp.MustCompile(`\bBIGSERIAL\s+PRIMARY\s+KEY\b`), "INTEGER PRIMARY KEY AUTOINCREMENT"},
		{regexp.MustCompile(`\bTIMESTAMPTZ\b`), "DATETIME"},
		{regexp.MustCompile(`\bBYTEA\b`), "BLOB"},
		{regexp.MustCompile(`\bJSONB\b`), "TEXT"},
	}
	// ddlRefused are PostgreSQL constructs outside the vocabulary above.
	ddlRefused = []struct {
		re   *regexp.Regexp
		what string
	}{
		{regexp.MustCompile(`\b(BIG|SMALL)?SERIAL\b`), "SERIAL outside BIGSERIAL PRIMARY KEY"},
		{regexp.MustCompile(`::`), "a :: cast"},
		{regexp.MustCompile(`\$\$`), "dollar quoting"},
		{regexp.MustCompile(`(?i)\bADD\s+CONSTRAINT\b`), "ALTER TABLE ... ADD CONSTRAINT"},
		{regexp.MustCompile(`(?i)\bTIMESTAMP\s+WITH\b`), "TIMESTAMP WITH TIME ZONE (write TIMESTAMPTZ)"},
		{regexp.MustCompile(`(?i)\bnow\s*\(`), "now() (the store sets times itself, in UTC)"},
	}
)

// sqliteDDL translates migration SQL from PostgreSQL to SQLite (see the vocabulary above).
func sqliteDDL(pg string) (string, error) {
	out := stripComments(pg)
	for _, r := range ddlRewrites {
		out = r.re.ReplaceAllString(out, r.out)
	}
	for _, r := range ddlRefused {
		if loc := r.re.FindStringIndex(out); loc != nil {
			return "", fmt.Errorf("cannot translate %s to SQLite (near %q)", r.what, excerpt(out, loc[0]))
		}
	}
	return out, nil
}

func excerpt(s string, at int) string {
	end := min(at+40, len(s))
	return strings.TrimSpace(s[at:end])
}

// stripComments removes "--" comments (outside string literals), so that a comment can mention
// any word without tripping the translation.
func stripComments(sql string) string {
	var b strings.Builder
	inString := false
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		switch {
		case c == '\'':
			inString = !inString
		case !inString && c == '-' && i+1 < len(sql) && sql[i+1] == '-':
			for i < len(sql) && sql[i] != '\n' {
				i++
			}
			if i < len(sql) {
				b.WriteByte('\n')
			}
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// splitStatements splits SQL at semicolons outside string literals and drops empty statements
// and comments.
func splitStatements(sql string) []string {
	sql = stripComments(sql)
	var (
		stmts    []string
		start    int
		inString bool
	)
	for i := 0; i < len(sql); i++ {
		switch sql[i] {
		case '\'':
			inString = !inString
		case ';':
			if !inString {
				stmts = appendStatement(stmts, sql[start:i])
				start = i + 1
			}
		}
	}
	return appendStatement(stmts, sql[start:])
}

func appendStatement(stmts []string, s string) []string {
	if s = strings.TrimSpace(s); s != "" {
		stmts = append(stmts, s)
	}
	return stmts
}

// errNoMigrations guards against a build that lost its embedded files.
var errNoMigrations = errors.New("gormstore: no migrations embedded")
