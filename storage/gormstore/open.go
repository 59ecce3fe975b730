package gormstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/glebarez/sqlite"
	"go.opentelemetry.io/otel/trace"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"

	"github.com/proctorhq/proctor/storage"
)

// Drivers accepted in Config.Driver.
const (
	DriverSQLite   = "sqlite"
	DriverPostgres = "postgres"
)

// Pool sizes used when Config.MaxOpenConns is 0. SQLite has one writer at a time whatever the
// pool, so a few connections are enough to let reads run beside a write; PostgreSQL gets room for
// a busy replica without exhausting the server's default of 100 connections when several run.
const (
	defaultSQLiteConns   = 4
	defaultPostgresConns = 20
)

// sqliteBusyTimeout is how long a SQLite statement waits for another connection's write lock
// before failing with SQLITE_BUSY (mapped to storage.ErrUnavailable).
const sqliteBusyTimeout = 10 * time.Second

// Config says which database to open.
type Config struct {
	Driver string // "sqlite" or "postgres"
	// DSN is, for sqlite, a file path (e.g. "var/proctor.db"; ":memory:" for a private in-memory
	// database) and, for postgres, a URL or a key=value DSN.
	DSN          string
	MaxOpenConns int          // 0: a default suited to the driver
	Logger       *slog.Logger // slow queries are reported here; nil discards them
	// CurriculumCacheRows bounds the curricula kept in memory, in rows: sections, lectures and
	// one per course (curricula.go); 0 is the default bound and a negative value keeps none.
	CurriculumCacheRows int
	// Tracer, when set, gives each statement sent within a traced operation a span
	// (TraceStatements); nil traces nothing.
	Tracer trace.TracerProvider
}

// Store is the gorm implementation of storage.Store.
type Store struct {
	db     *gorm.DB
	sqlDB  *sql.DB
	driver string
	// now is the store's clock for the timestamps it sets itself.
	now func() time.Time
	// sent counts the SQL statements sent (Statements).
	sent atomic.Int64
	// curriculumCache keeps the curricula read (curricula.go); nil when Config turned it off.
	curriculumCache *curriculumCache
}

var _ storage.Store = (*Store)(nil)

// Open connects to the database described by cfg and checks that it answers. It does not
// migrate: call Migrate (the migrate command) or PendingMigrations (serve refuses to start on an
// old schema). For SQLite it creates the database file's directory.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	if cfg.DSN == "" {
		return nil, errors.New("gormstore: empty DSN")
	}
	var (
		dialector gorm.Dialector
		conns     = cfg.MaxOpenConns
		memory    bool
	)
	switch cfg.Driver {
	case DriverSQLite:
		dsn, mem, err := sqliteDSN(cfg.DSN)
		if err != nil {
			return nil, err
		}
		memory = mem
		dialector = sqlite.Open(dsn)
		if conns <= 0 {
			conns = defaultSQLiteConns
		}
		if memory {
			// Every connection to ":memory:" is a database of its own.
			conns = 1
		}
	case DriverPostgres:
		dialector = postgres.New(postgres.Config{DSN: cfg.DSN})
		if conns <= 0 {
			conns = defaultPostgresConns
		}
	default:
		return nil, fmt.Errorf("gormstore: unknown driver %q (want %q or %q)", cfg.Driver, DriverSQLite, DriverPostgres)
	}

	db, err := gorm.Open(dialector, &gorm.Config{
		Logger: newQueryLogger(cfg.Logger),
		// Every write that needs a transaction opens one explicitly; gorm's implicit
		// per-statement transactions would only add round trips.
		SkipDefaultTransaction: true,
		// gorm's own ping takes no context; Open pings below with the caller's.
		DisableAutomaticPing: true,
		NowFunc:              func() time.Time { return dbTime(time.Now()) },
	})
	if err != nil {
		return nil, wrap("open "+cfg.Driver, err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, wrap("open "+cfg.Driver, err)
	}
	sqlDB.SetMaxOpenConns(conns)
	sqlDB.SetMaxIdleConns(conns)
	if cfg.Driver == DriverPostgres {
		// Let idle connections go so that a quiet replica does not pin server slots, and
		// recycle long-lived ones so that a failover or pooler restart is picked up.
		sqlDB.SetConnMaxIdleTime(5 * time.Minute)
		sqlDB.SetConnMaxLifetime(time.Hour)
	}
	s := &Store{db: db, sqlDB: sqlDB, driver: cfg.Driver, now: time.Now}
	switch rows := cfg.CurriculumCacheRows; {
	case rows == 0:
		s.curriculumCache = newCurriculumCache(defaultCurriculumCacheRows)
	case rows > 0:
		s.curriculumCache = newCurriculumCache(rows)
	}
	s.countStatements()
	s.TraceStatements(cfg.Tracer)
	if err := s.Ping(ctx); err != nil {
		_ = sqlDB.Close()
		return nil, err
	}
	return s, nil
}

// sqliteDSN turns a database file path into the driver's DSN with the connection settings Proctor
// relies on, creating the file's directory. It reports whether the database is in memory.
func sqliteDSN(path string) (dsn string, memory bool, err error) {
	if strings.ContainsRune(path, '?') {
		// The driver splits its options off at the first '?'; ours must be the only ones.
		return "", false, fmt.Errorf("gormstore: sqlite DSN %q: give a plain file path, without options", path)
	}
	memory = path == ":memory:"
	if !memory {
		file := strings.TrimPrefix(path, "file:")
		if dir := filepath.Dir(file); dir != "." {
			if err := os.MkdirAll(dir, 0o750); err != nil {
				return "", false, fmt.Errorf("gormstore: create database directory: %w", err)
			}
		}
	}
	pragmas := []string{
		// First, so that the pragmas after it wait for a lock instead of failing.
		fmt.Sprintf("busy_timeout(%d)", sqliteBusyTimeout.Milliseconds()),
		// WAL lets readers proceed while one connection writes.
		"journal_mode(WAL)",
		// SQLite ignores REFERENCES clauses unless asked, per connection.
		"foreign_keys(1)",
		// Durable at each checkpoint rather than each commit: the WAL keeps commits atomic.
		"synchronous(NORMAL)",
	}
	var b strings.Builder
	b.WriteString(path)
	b.WriteString("?")
	for _, p := range pragmas {
		b.WriteString("_pragma=")
		b.WriteString(p)
		b.WriteString("&")
	}
	// BEGIN IMMEDIATE: a transaction takes the write lock when it starts, so two transactions
	// that read and then write never deadlock on upgrading their locks (which SQLite reports as
	// SQLITE_BUSY without waiting). It is also what serialises read-modify-write on SQLite.
	// Note that the driver ignores _txlock when _time_format is present, so that one is unset.
	b.WriteString("_txlock=immediate")
	return b.String(), memory, nil
}

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	return wrap("ping", s.sqlDB.PingContext(ctx))
}

// Close releases the database.
func (s *Store) Close() error {
	return wrap("close", s.sqlDB.Close())
}

// SQLDB is the store's connection pool, for its statistics (the server's /metrics). Callers
// read its Stats; the store owns it and closes it.
func (s *Store) SQLDB() *sql.DB { return s.sqlDB }
