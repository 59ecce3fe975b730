package bench

import (
	"database/sql"
	"os"
	"testing"
	"time"
)

func TestDBCPUSince(t *testing.T) {
	before := map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 3: time.Second}
	// Backend 1 worked 0.5 s, 2 exited (its time since the first reading is lost), 4 started.
	after := map[int]time.Duration{1: 1500 * time.Millisecond, 3: time.Second, 4: 250 * time.Millisecond}
	if got := dbCPUSince(before, after); got != 750*time.Millisecond {
		t.Errorf("dbCPUSince = %v, want 750ms", got)
	}
}

// TestDBBackendsFindsTheServersConnections: a connection carrying the bench schema's name as its
// application_name, as the server's do, is found in pg_stat_activity and its CPU time read.
func TestDBBackendsFindsTheServersConnections(t *testing.T) {
	dsn := os.Getenv("PROCTOR_TEST_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("PROCTOR_TEST_POSTGRES_DSN is not set")
	}
	ws := &workspace{adminDSN: dsn, schema: "proctor_bench_" + randomHex(6)}
	serverDSN, err := createSchema(t.Context(), dsn, ws.schema)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dropSchema(dsn, ws.schema) })
	server, err := sql.Open("pgx", serverDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	if err := server.PingContext(t.Context()); err != nil {
		t.Fatal(err)
	}
	d, err := openDBBackends(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	times, err := d.cpu(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(times) != 1 {
		t.Errorf("%d backends found for the server's one connection: %v", len(times), times)
	}
	if none, err := openDBBackends(&workspace{}); none != nil || err != nil {
		t.Errorf("SQLite: %v, %v", none, err)
	}
}
