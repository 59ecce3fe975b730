package bench

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	_ "github.com/glebarez/go-sqlite" // the "sqlite" database/sql driver gormstore's SQLite uses

	"github.com/proctorhq/proctor/config"
)

// Baselines put the scenarios' figures in proportion: the same runner, client, concurrency and
// bounds against the least a server can do (a bare net/http handler) and the least a write can
// cost (one single-row INSERT on the same database). A scenario at 0.05 of bare HTTP spends 95%
// of its time beyond the network and the Go HTTP stack; one at 1.0 of the insert rate is as fast
// as committing one row.

// Names of the baseline measurements.
const (
	baselineBareHTTP = "bare-http"
	baselineInsert   = "db-insert"
)

// measureBareHTTP serves a handler that writes two bytes from this process on host and drives
// it like a scenario.
func measureBareHTTP(ctx context.Context, host string, tr http.RoundTripper, warm, run Bounds) (Result, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(strings.Trim(host, "[]"), "0"))
	if err != nil {
		return Result{}, err
	}
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			_, _ = io.WriteString(w, "ok")
		}),
		ReadHeaderTimeout: 5 * time.Second,
	}
	go func() { _ = srv.Serve(l) }()
	defer srv.Close()

	client := &http.Client{Transport: tr, Timeout: requestTimeout}
	url := "http://" + l.Addr().String() + "/"
	op := func(ctx context.Context, _ int) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("bare handler: status %d", resp.StatusCode)
		}
		return nil
	}
	RunLoad(ctx, warm, op)
	return RunLoad(ctx, run, op), nil
}

// measureInsert inserts one row per request into a table of its own in the run's database,
// through database/sql with the driver, connection settings and pool size the server uses, so
// that the figure is the database's commit rate rather than anything of Proctor's.
func measureInsert(ctx context.Context, d config.Database, warm, run Bounds) (Result, error) {
	var create, insert string
	switch d.Driver {
	case driverSQLite:
		create = `CREATE TABLE bench_insert (id INTEGER PRIMARY KEY AUTOINCREMENT, payload TEXT NOT NULL, created_at TIMESTAMP NOT NULL)`
		insert = `INSERT INTO bench_insert (payload, created_at) VALUES (?, ?)`
	case driverPostgres:
		create = `CREATE TABLE bench_insert (id BIGSERIAL PRIMARY KEY, payload TEXT NOT NULL, created_at TIMESTAMPTZ NOT NULL)`
		insert = `INSERT INTO bench_insert (payload, created_at) VALUES ($1, $2)`
	}
	db, err := openSQL(d)
	if err != nil {
		return Result{}, err
	}
	defer db.Close()
	db.SetMaxOpenConns(d.MaxOpenConns)
	db.SetMaxIdleConns(d.MaxOpenConns)
	if _, err := db.ExecContext(ctx, create); err != nil {
		return Result{}, fmt.Errorf("create the baseline table: %w", err)
	}
	stmt, err := db.PrepareContext(ctx, insert)
	if err != nil {
		return Result{}, err
	}
	defer stmt.Close()
	// The payload is about the size of a token pair's signatures.
	payload := strings.Repeat("x", 96)
	op := func(ctx context.Context, _ int) error {
		ctx, cancel := context.WithTimeout(ctx, requestTimeout)
		defer cancel()
		_, err := stmt.ExecContext(ctx, payload, time.Now().UTC())
		return err
	}
	RunLoad(ctx, warm, op)
	res := RunLoad(ctx, run, op)
	if _, err := db.ExecContext(context.WithoutCancel(ctx), `DROP TABLE bench_insert`); err != nil {
		return res, fmt.Errorf("drop the baseline table: %w", err)
	}
	return res, nil
}

// openSQL opens the run's database through database/sql with the driver and connection
// settings the server uses (the insert baseline, the soak's row counts).
func openSQL(d config.Database) (*sql.DB, error) {
	switch d.Driver {
	case driverSQLite:
		return sql.Open("sqlite", sqliteBaselineDSN(d.DSN))
	case driverPostgres:
		return sql.Open("pgx", d.DSN)
	}
	return nil, fmt.Errorf("unknown driver %q", d.Driver)
}

// sqliteBaselineDSN opens the database file with the settings gormstore gives every SQLite
// connection: wait for the write lock rather than fail, write-ahead log, and commits durable at
// checkpoints (synchronous NORMAL). Without them the baseline would measure a different
// database.
func sqliteBaselineDSN(path string) string {
	return path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)"
}
