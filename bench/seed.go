package bench

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver: schema set-up, insert baseline
	"gopkg.in/yaml.v3"

	"github.com/proctorhq/proctor/childproc"
	"github.com/proctorhq/proctor/client"
	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/password"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
)

// DataSize is the curriculum the command seeds: Courses courses of Sections sections of
// Lectures lectures each.
type DataSize struct {
	Courses, Sections, Lectures int
}

// DefaultData is 20 courses of 200 lectures (10 sections of 20): the member the
// graphql-curriculum scenario reads has 4000 lectures, each with a progress row.
var DefaultData = DataSize{Courses: 20, Sections: 10, Lectures: 20}

// The bench school's identity. The school id is high so that a kept database (--keep) is not
// mistaken for a real school's.
const (
	benchSchoolID  = 990001
	benchSubdomain = "bench"
	benchName      = "Proctor Bench School"
	benchEmailHost = "bench.proctor.test"
	// benchRedirectURI is the bench client's callback. Nothing listens there: the load
	// generator reads the code from the Location header, as a native app's loopback listener
	// would.
	benchRedirectURI = "http://127.0.0.1/callback"
	// maxLearners bounds the members signed in for the flows: workers beyond it share
	// members, each with a session of its own.
	maxLearners = 32
)

// benchPasswordParams are low argon2id costs for the bench members. Signing in is not a
// measured scenario (sessions are established before any timing), and the default 64 MiB per
// hash would stay in the server's heap and inflate the peak memory of the first scenarios.
var benchPasswordParams = password.Params{MemoryKiB: 1024, Time: 1, Threads: 1}

// benchScopes are what the bench client may ask for: the identity scopes (openid makes the
// code exchange return an ID token) and the member read scope the Member API needs.
var benchScopes = []string{"openid", "profile", "email", "account:read"}

// workspace is the temporary directory of one run: configuration, secret, logs and (SQLite) the
// database.
type workspace struct {
	dir        string
	configFile string
	logFile    string
	cfg        *config.Config
	// schema is the PostgreSQL schema the run created ("" on SQLite).
	schema string
	// adminDSN is the --dsn as given (the schema is created and dropped through it).
	adminDSN string
	// apiKey is the server's internal API key: the run reads profiles with it.
	apiKey string
	// ports holds the server's public and internal addresses (held) until release: a port
	// closed at once could be handed out again, to the server's other listener (two listeners
	// on one port fail its start) or, while the school is seeded, to another listener or
	// outgoing connection on the machine.
	ports *childproc.Ports
	held  []string
}

// newWorkspace creates the directory, the database (a file, or a schema of its own on
// PostgreSQL) and a server configuration for one school on host, and reads that configuration
// back through config.Load, the loader `proctor serve` uses, so it is checked by the same rules.
func newWorkspace(ctx context.Context, o *Options) (*workspace, error) {
	dir, err := os.MkdirTemp(o.TempDir, "proctor-bench-")
	if err != nil {
		return nil, err
	}
	ws := &workspace{
		dir: dir, configFile: filepath.Join(dir, "server.yaml"), logFile: filepath.Join(dir, "server.log"),
		adminDSN: o.DSN, apiKey: randomHex(32),
	}
	ws.ports = childproc.NewPorts(o.Host)
	if ws.held, err = ws.ports.Hold(2); err != nil {
		return ws, err
	}
	publicAddr, internalAddr := ws.held[0], ws.held[1]
	db := map[string]any{"driver": o.Database}
	switch o.Database {
	case driverSQLite:
		db["dsn"] = filepath.Join(dir, "proctor.db")
		db["max_open_conns"] = sqliteConns
	case driverPostgres:
		ws.schema = "proctor_bench_" + randomHex(6)
		dsn, err := createSchema(ctx, o.DSN, ws.schema)
		if err != nil {
			ws.schema = ""
			return ws, err
		}
		db["dsn"] = dsn
		db["max_open_conns"] = postgresConns
	}
	secret := make([]byte, 32)
	_, _ = rand.Read(secret)
	if err := os.WriteFile(filepath.Join(dir, "secret"), []byte(base64.StdEncoding.EncodeToString(secret)+"\n"), 0o600); err != nil {
		return ws, err
	}
	schoolsDir := filepath.Join(dir, "schools")
	if err := os.Mkdir(schoolsDir, 0o700); err != nil {
		return ws, err
	}
	_, port, _ := net.SplitHostPort(publicAddr)
	schoolFile := map[string]any{
		"school_id": benchSchoolID,
		"subdomain": benchSubdomain,
		"name":      benchName,
		"base_url":  "http://" + net.JoinHostPort(o.Host, port),
		"features":  map[string]any{"id_tokens": true, "mcp_connections": true},
		// Codes minted for the exchange scenario wait for their turn; the longest lifetime the
		// school rules allow keeps them valid through a long run.
		"lifetimes": map[string]any{"authorization_code": "10m"},
	}
	if o.Soak {
		// The shortest lifetimes the school rules allow, so that rows expire within minutes
		// and the server's purge job has work during the soak (soak.go).
		schoolFile["lifetimes"] = map[string]any{
			"access_token": soakAccessLifetime.String(), "refresh_token": soakRefreshLifetime.String(),
			"authorization_code": soakCodeLifetime.String(),
		}
	}
	srv := map[string]any{
		"public":      map[string]any{"addr": publicAddr},
		"internal":    map[string]any{"addr": internalAddr, "api_key": ws.apiKey},
		"database":    db,
		"schools_dir": schoolsDir,
		"secret_file": filepath.Join(dir, "secret"),
		// warn: a log line per request would measure the logger.
		"log":  map[string]any{"level": "warn", "format": "json"},
		"http": httpSettings(o),
	}
	if err := writeYAML(filepath.Join(schoolsDir, "bench.yaml"), schoolFile); err != nil {
		return ws, err
	}
	if err := writeYAML(ws.configFile, srv); err != nil {
		return ws, err
	}
	cfg, err := config.Load(ws.configFile)
	if err != nil {
		return ws, fmt.Errorf("the generated configuration does not load: %w", err)
	}
	ws.cfg = cfg
	return ws, nil
}

// Pool sizes, written into the configuration so that the server and the insert baseline use
// the same number of connections. They are the sizes gormstore picks by default.
const (
	sqliteConns   = 4
	postgresConns = 20
)

// release stops holding the server's ports, for the server about to bind them (again a
// no-op). The window left, the server's start, is an acceptable race on one machine.
func (ws *workspace) release() {
	if ws.ports != nil {
		ws.ports.Release(ws.held...)
	}
	ws.held = nil
}

// close releases the server's ports if they are still held, and drops the schema and removes
// the directory, unless keep.
func (ws *workspace) close(keep bool) error {
	ws.release()
	if keep {
		return nil
	}
	var errs []error
	if ws.schema != "" {
		errs = append(errs, dropSchema(ws.adminDSN, ws.schema))
	}
	errs = append(errs, os.RemoveAll(ws.dir))
	return errors.Join(errs...)
}

func writeYAML(path string, v any) error {
	b, err := yaml.Marshal(v)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// checkPostgresDSN applies the loopback rule to the database too: the server and the insert
// baseline load it as hard as the HTTP target. A Unix socket is local by definition.
func checkPostgresDSN(ctx context.Context, r Resolver, dsn string) error {
	pc, err := pgconn.ParseConfig(dsn)
	if err != nil {
		return fmt.Errorf("--dsn: %w", err)
	}
	hosts := []string{pc.Host}
	for _, f := range pc.Fallbacks {
		hosts = append(hosts, f.Host)
	}
	for _, h := range hosts {
		if strings.HasPrefix(h, "/") {
			continue
		}
		if err := CheckLoopback(ctx, r, h); err != nil {
			return fmt.Errorf("--dsn: %w", err)
		}
	}
	return nil
}

// createSchema creates schema through dsn and returns a DSN whose search_path is that schema,
// so that the server's tables and the baseline's live there and go with it.
func createSchema(ctx context.Context, dsn, schema string) (string, error) {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return "", err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		return "", fmt.Errorf("create schema %s: %w", schema, err)
	}
	if strings.Contains(dsn, "://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return "", err
		}
		q := u.Query()
		q.Set("search_path", schema)
		q.Set("application_name", schema) // how dbBackends finds the server's connections
		u.RawQuery = q.Encode()
		return u.String(), nil
	}
	return dsn + " search_path=" + schema + " application_name=" + schema, nil
}

func dropSchema(dsn, schema string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
		return fmt.Errorf("drop schema %s: %w", schema, err)
	}
	return nil
}

// fixture is what seeding produced and the scenarios sign in with.
type fixture struct {
	origin   string
	clientID string
	password string
	// learners sign in for the OAuth flows; busy is the member with the big curriculum.
	learners []string
	busy     string
	size     DataSize
}

// seedSchool migrates the database and fills the bench school through the code paths an
// operator uses: the school row as `serve` syncs it, members, courses, enrollments and
// progress through the import `proctor seed` applies a fixture with, and the client as
// `proctor clients create` makes one.
func seedSchool(ctx context.Context, d Deps, cfg *config.Config, size DataSize, learners int) (*fixture, error) {
	if d.OpenStore == nil {
		return nil, errors.New("bench: Deps.OpenStore is needed to seed the school")
	}
	st, err := d.OpenStore(ctx, cfg.Server.Database)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	if _, err := st.Migrate(ctx); err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	t, err := school.New(cfg.Schools[0])
	if err != nil {
		return nil, err
	}
	if err := st.SyncSchool(ctx, t.SchoolID, t.Subdomain, t.Name); err != nil {
		return nil, err
	}
	tctx := school.NewContext(ctx, t)

	s := &fixture{origin: t.Origin, password: randomHex(16), busy: "busy@" + benchEmailHost, size: size}
	for i := range learners {
		s.learners = append(s.learners, fmt.Sprintf("learner-%03d@%s", i+1, benchEmailHost))
	}
	// Every member has the same password: one hash serves them all.
	hash, err := password.Hash(s.password, benchPasswordParams)
	if err != nil {
		return nil, err
	}
	if _, err := st.ImportSchoolData(tctx, s.fixtureData(hash), storage.ImportOptions{}); err != nil {
		return nil, fmt.Errorf("seed: %w", err)
	}

	c, _, err := client.NewManager(st, cfg.Server.Secret).Create(tctx, client.Request{
		Kind: storage.ClientMember, Name: "Proctor Bench", RedirectURIs: []string{benchRedirectURI}, Scopes: benchScopes,
	})
	if err != nil {
		return nil, err
	}
	s.clientID = c.ID
	return s, nil
}

// fixtureData is the school's content: the curriculum, the busy member enrolled in every course
// with progress on every lecture (alternately completed and read, so that both states are
// answered), and learners enrolled in every course without progress. Every member signs in
// with s.password, whose hash is passwordHash.
func (s *fixture) fixtureData(passwordHash string) *storage.SchoolData {
	base := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	d := &storage.SchoolData{}
	for _, email := range append([]string{s.busy}, s.learners...) {
		d.Members = append(d.Members, storage.MemberSeed{
			Email: email, Name: strings.TrimSuffix(email, "@"+benchEmailHost), PasswordHash: passwordHash, Roles: []storage.Role{storage.RoleStudent},
		})
	}
	for c := range s.size.Courses {
		slug := "course-" + strconv.Itoa(c+1)
		course := storage.CourseSeed{OfferSeed: storage.OfferSeed{Slug: slug, Title: fmt.Sprintf("Course %d", c+1), PriceAmount: int64(1000 + 100*c), Currency: "USD"}, Published: true}
		for sec := range s.size.Sections {
			section := storage.SectionSeed{Title: fmt.Sprintf("Section %d.%d", c+1, sec+1)}
			for l := range s.size.Lectures {
				section.Lectures = append(section.Lectures, storage.LectureSeed{Title: fmt.Sprintf("Lecture %d.%d.%d", c+1, sec+1, l+1), DurationSeconds: 120 + 7*l})
				state := storage.LectureCompleted
				if l%2 == 1 {
					state = storage.LectureRead
				}
				d.Progress = append(d.Progress, storage.ProgressSeed{
					Member: s.busy, Lecture: storage.LectureRef{Course: slug, Section: sec + 1, Lecture: l + 1},
					State: state, PositionSeconds: 60 + l, UpdatedAt: base.Add(time.Duration(c*1000+sec*100+l) * time.Minute),
				})
			}
			course.Sections = append(course.Sections, section)
		}
		d.Courses = append(d.Courses, course)
		for _, m := range d.Members {
			d.Enrollments = append(d.Enrollments, storage.EnrollmentSeed{Member: m.Email, Course: slug, LifetimeAccess: true, EnrolledAt: base.Add(time.Duration(c) * time.Hour)})
		}
	}
	return d
}

// benchScopeList is benchScopes as a scope parameter.
func benchScopeList() string { return strings.Join(benchScopes, " ") }

// httpSettings are the server's HTTP bounds: a short drain at the end, and a write timeout
// longer than a CPU profile of the whole timed run when one is taken (the profile is one
// response that lasts that long).
func httpSettings(o *Options) map[string]any {
	h := map[string]any{"shutdown_grace": "5s"}
	if o.ProfileDir != "" {
		h["write_timeout"] = (max(o.Duration, 0) + 30*time.Second).String()
	}
	return h
}
