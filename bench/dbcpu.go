package bench

import (
	"context"
	"database/sql"
	"time"
)

// dbBackends reads the CPU time of the PostgreSQL backends that serve the bench's server, so
// that a report shows what a request costs the database as well as the server: a statement
// saved shows on both sides. The server's connections carry the bench's schema name as their
// application_name (createSchema puts it in the server's DSN), and pg_stat_activity gives their
// process ids. PostgreSQL runs on this machine (the loopback guard), so each backend's CPU time
// is in /proc, as the server's own is (processCPU).
type dbBackends struct {
	db      *sql.DB
	appName string
}

// openDBBackends connects through the --dsn the bench was given. It returns nil for SQLite,
// which runs inside the server.
func openDBBackends(ws *workspace) (*dbBackends, error) {
	if ws.schema == "" {
		return nil, nil
	}
	db, err := sql.Open("pgx", ws.adminDSN)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return &dbBackends{db: db, appName: ws.schema}, nil
}

func (d *dbBackends) close() {
	if d != nil {
		_ = d.db.Close()
	}
}

// cpu returns each backend's CPU time so far, by process id. A backend that has exited since a
// reading is not in the next one: its time after that reading is lost, which the server's
// connection pool, holding its connections through a run, makes rare.
func (d *dbBackends) cpu(ctx context.Context) (map[int]time.Duration, error) {
	rows, err := d.db.QueryContext(ctx, "SELECT pid FROM pg_stat_activity WHERE application_name = $1", d.appName)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	times := map[int]time.Duration{}
	for rows.Next() {
		var pid int
		if err := rows.Scan(&pid); err != nil {
			return nil, err
		}
		if t, err := processCPU(pid); err == nil {
			times[pid] = t
		}
	}
	return times, rows.Err()
}

// dbCPUSince is the CPU time the backends spent between two readings; a backend that started
// between them counts from zero.
func dbCPUSince(before, after map[int]time.Duration) time.Duration {
	var total time.Duration
	for pid, t := range after {
		total += t - before[pid]
	}
	return total
}
