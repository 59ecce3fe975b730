package systemtest

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/proctorhq/proctor/bench/flow"
	"github.com/proctorhq/proctor/childproc"
	"github.com/proctorhq/proctor/password"
	"github.com/proctorhq/proctor/storage/gormstore/storetest"
)

// The school every test serves, and its member.
const (
	schoolID     = 4242
	memberEmail  = "ada@systemtest.proctor.test"
	memberName   = "Ada Systemtest"
	redirectURI  = "http://127.0.0.1/callback"
	memberScopes = "openid profile email account:read"
	// operatorScope is what the operator client asks for: GET /api/v1/school needs it.
	operatorScope = "school:read"
)

// Bounds of a process's life.
const (
	readyTimeout = 2 * time.Minute
	cliTimeout   = 60 * time.Second
	// requestTimeout bounds every HTTP request of the tests. It only stops a test on a server
	// that never answers: a request cut off early fails the tests that load the server (a
	// worker stopped before the kill, a held request unanswered), and a busy machine's
	// PostgreSQL may stall for seconds.
	requestTimeout = time.Minute
	// pollEvery is the pause between two attempts of a bounded poll.
	pollEvery = 50 * time.Millisecond
)

// lowCost is the argon2id cost of the member's password: the tests sign in a few times and
// measure nothing, and the default 64 MiB per hash would only load the shared machine.
var lowCost = password.Params{MemoryKiB: 1024, Time: 1, Threads: 1}

// deployment is one school's configuration on one database: the school files and the system
// secret every server of the test shares, and the DSN they use.
type deployment struct {
	t          *testing.T
	dir        string
	dsn        string
	schoolsDir string
	secretFile string
	// origin is the school's base_url, http://127.0.0.1:<port>. Clients always send it as the
	// Host; which process answers is chosen by the address they dial (replica.public).
	origin string
	// grace is http.shutdown_grace of every server file ("" keeps the default).
	grace string
	// readWrite is http.read_timeout and http.write_timeout of every server file ("" keeps the
	// defaults).
	readWrite string
	// startupTimeout is database.startup_timeout of every server file ("" keeps the default).
	startupTimeout string
}

// newDeployment creates a fresh schema and the shared files. originAddr is the host and port of
// the school's base_url (normally the first server's public address). rewrite, when not nil,
// turns the schema's DSN into the one the servers are given (the outage test points it at its
// proxy).
func newDeployment(t *testing.T, originAddr string, rewrite func(schemaDSN string) string) *deployment {
	t.Helper()
	dsn := storetest.PostgresDSN(t)
	if rewrite != nil {
		dsn = rewrite(dsn)
	}
	dir := t.TempDir()
	d := &deployment{
		t: t, dir: dir, dsn: dsn,
		schoolsDir: filepath.Join(dir, "schools"),
		secretFile: filepath.Join(dir, "secret"),
		origin:     "http://" + originAddr,
	}
	secret := make([]byte, 32)
	_, _ = rand.Read(secret)
	must(t, os.WriteFile(d.secretFile, []byte(base64.StdEncoding.EncodeToString(secret)+"\n"), 0o600))
	must(t, os.Mkdir(d.schoolsDir, 0o700))
	must(t, writeYAML(filepath.Join(d.schoolsDir, "school.yaml"), map[string]any{
		"school_id": schoolID,
		"subdomain": "systemtest",
		"name":      "Proctor System Test School",
		"base_url":  d.origin,
		"features":  map[string]any{"id_tokens": true},
	}))
	return d
}

// replica is one server's addresses and its own server file.
type replica struct {
	name       string
	public     string
	internal   string
	configFile string
	proc       *process
	transport  *http.Transport
}

// serveAlone starts the deployment's one server, "S", listening on the origin's address, once the
// school is set up (with the operator client when operator is set).
func (d *deployment) serveAlone(operator bool) (*replica, *site, *process) {
	d.t.Helper()
	R := d.newReplica("S", strings.TrimPrefix(d.origin, "http://"))
	s := d.setUp(R.configFile, operator)
	return R, s, R.start(d.t)
}

// newReplica writes a server file for a server listening on public (and a free internal port).
func (d *deployment) newReplica(name, public string) *replica {
	d.t.Helper()
	r := &replica{name: name, public: public, internal: reserveAddr(d.t), configFile: filepath.Join(d.dir, name+".yaml")}
	httpConf := map[string]any{}
	if d.grace != "" {
		httpConf["shutdown_grace"] = d.grace
	}
	if d.readWrite != "" {
		httpConf["read_timeout"] = d.readWrite
		httpConf["write_timeout"] = d.readWrite
	}
	database := map[string]any{"driver": "postgres", "dsn": d.dsn, "max_open_conns": 8}
	if d.startupTimeout != "" {
		database["startup_timeout"] = d.startupTimeout
	}
	must(d.t, writeYAML(r.configFile, map[string]any{
		"public":      map[string]any{"addr": r.public},
		"internal":    map[string]any{"addr": r.internal},
		"database":    database,
		"schools_dir": d.schoolsDir,
		"secret_file": d.secretFile,
		"log":         map[string]any{"level": "info", "format": "json"},
		"http":        httpConf,
	}))
	r.resetTransport()
	return r
}

// resetTransport drops every pooled connection to the replica (after it was restarted).
func (r *replica) resetTransport() {
	if r.transport != nil {
		r.transport.CloseIdleConnections()
	}
	addr := r.public
	dialer := &net.Dialer{Timeout: 5 * time.Second}
	r.transport = &http.Transport{
		// Whatever host the URL names (the school's origin), connect to this replica.
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return dialer.DialContext(ctx, network, addr)
		},
		MaxIdleConnsPerHost: 16,
		IdleConnTimeout:     30 * time.Second,
		DisableCompression:  true,
	}
}

// start runs `proctor serve` for the replica and waits until it is ready.
func (r *replica) start(t *testing.T) *process {
	t.Helper()
	releaseAddrs(r.public, r.internal)
	r.proc = startProcess(t, r.name, r.internal, binary, "serve", "--config", r.configFile)
	return r.proc
}

// process is a running `proctor` child.
type process struct {
	name string
	*childproc.Process
}

var logSeq struct {
	sync.Mutex
	n int
}

// startProcess starts the binary with args, its output going to a log file, and waits until
// /readyz on internalAddr answers 200. The process is killed when the test ends, and its log
// tail printed if the test failed.
func startProcess(t *testing.T, name, internalAddr string, exe string, args ...string) *process {
	t.Helper()
	p := launchProcess(t, name, exe, args...)
	if err := waitReady(internalAddr, p.Done()); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, p.tail(30))
	}
	return p
}

// launchProcess starts the binary with args, its output going to a log file of its own, without
// waiting for anything. The kernel kills it if the test process dies first (Linux), so that an
// interrupted test run never leaves a server behind; otherwise it is killed when the test ends,
// and its log tail printed if the test failed.
func launchProcess(t *testing.T, name string, exe string, args ...string) *process {
	t.Helper()
	logSeq.Lock()
	logSeq.n++
	n := logSeq.n
	logSeq.Unlock()
	logFile := filepath.Join(t.TempDir(), fmt.Sprintf("%s-%d.log", name, n))
	cmd := exec.Command(exe, args...)
	cmd.Env = childEnv()
	cmd.Dir = filepath.Dir(logFile)
	proc, err := childproc.Start(cmd, logFile, syscall.SIGKILL)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	p := &process{name: name, Process: proc}
	t.Cleanup(func() {
		p.Kill()
		if t.Failed() {
			t.Logf("%s", p.tail(30))
		}
	})
	return p
}

// signal sends sig to the process.
func (p *process) signal(t *testing.T, sig os.Signal) {
	t.Helper()
	if err := p.Signal(sig); err != nil {
		t.Fatalf("signal %s: %v", p.name, err)
	}
}

// wait waits at most d for the process to exit; ok is false if it is still running.
func (p *process) wait(d time.Duration) (state *os.ProcessState, ok bool) {
	select {
	case <-p.Done():
		return p.State(), true
	case <-time.After(d):
		return nil, false
	}
}

// tail returns the last n lines of the process's log.
func (p *process) tail(n int) string {
	lines, err := p.Tail(n)
	if err != nil {
		return ""
	}
	return p.name + " log (" + p.LogFile() + "):\n" + lines
}

// childEnv is this process's environment without PROCTOR_* variables: the written
// configuration must be the whole truth.
func childEnv() []string { return childproc.Env(os.Environ()) }

// waitReady polls GET /readyz until it answers 200, the process exits or readyTimeout passes.
func waitReady(internalAddr string, exited <-chan struct{}) error {
	c := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	return childproc.WaitReady(context.Background(), c, internalAddr, exited, readyTimeout)
}

// cliResult is the outcome of one command run.
type cliResult struct {
	stdout, stderr string
	code           int
}

// cli runs `proctor --config configFile args...` to completion; with configFile "", args are
// the whole command line.
func cli(t *testing.T, configFile, stdin string, args ...string) cliResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	line := args
	if configFile != "" {
		line = append([]string{"--config", configFile}, args...)
	}
	cmd := exec.CommandContext(ctx, binary, line...)
	cmd.Env = childEnv()
	cmd.Dir = t.TempDir()
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := cliResult{stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		res.code = exit.ExitCode()
	default:
		t.Fatalf("proctor %s: %v", strings.Join(args, " "), err)
	}
	return res
}

// mustCLI runs a command that must succeed and returns its standard output.
func mustCLI(t *testing.T, configFile string, args ...string) string {
	t.Helper()
	res := cli(t, configFile, "", args...)
	if res.code != 0 {
		t.Fatalf("proctor %s: exit %d\n%s%s", strings.Join(args, " "), res.code, res.stdout, res.stderr)
	}
	return res.stdout
}

// site is what a client of the school knows: where it is, its client ids and the member's
// credentials.
type site struct {
	origin           string
	clientID         string
	operatorClientID string
	password         string
}

// setUp migrates the database and seeds the school through the binary's own commands: the
// member (an owner, with a low-cost hash) from a fixture with `proctor seed`, a public member
// client and, with operator, a public operator client with `proctor clients create`.
func (d *deployment) setUp(configFile string, operator bool) *site {
	t := d.t
	t.Helper()
	mustCLI(t, configFile, "migrate")
	s := &site{origin: d.origin, password: flow.RandomString(12)}
	hash, err := password.Hash(s.password, lowCost)
	must(t, err)
	fixture := filepath.Join(d.dir, "fixture.yaml")
	must(t, writeYAML(fixture, map[string]any{
		"members": []any{map[string]any{
			"email": memberEmail, "name": memberName, "password_hash": hash, "roles": []string{"owner"},
		}},
	}))
	mustCLI(t, configFile, "seed", "--school", fmt.Sprint(schoolID), fixture)
	s.clientID = createClient(t, configFile, "member", "System Test App", memberScopes)
	if operator {
		s.operatorClientID = createClient(t, configFile, "operator", "System Test Console", operatorScope)
	}
	return s
}

func createClient(t *testing.T, configFile, kind, name, scopes string) string {
	t.Helper()
	out := mustCLI(t, configFile, "clients", "create", "--school", fmt.Sprint(schoolID), "--kind", kind,
		"--name", name, "--redirect-uri", redirectURI, "--scopes", scopes, "--json")
	var c struct {
		ClientID string `json:"client_id"`
	}
	if err := json.Unmarshal([]byte(out), &c); err != nil || c.ClientID == "" {
		t.Fatalf("clients create: no client_id in %q", out)
	}
	return c.ClientID
}

// ports hands out every loopback address the tests listen on or point at: none twice in this
// process (childproc.Ports), since a port closed and asked for again may come back, and a
// replica's two listeners (or two replicas, or a replica and the database proxy, which closes
// its port and opens it again) on one port fail.
var ports = childproc.NewPorts("127.0.0.1")

// listenFree listens on a loopback port no earlier call chose (ports.Listen).
func listenFree() (net.Listener, error) { return ports.Listen() }

// freeAddr returns a loopback address nothing listens on now and listenFree never chose before:
// an address where nothing is meant to listen.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := listenFree()
	must(t, err)
	defer l.Close()
	return l.Addr().String()
}

// reserveAddr returns an address for a server's listener, as freeAddr does, but keeps listening
// on it until releaseAddrs, just before the server starts. Between the choice and the start the
// test sets the deployment up (migrations, members, clients: processes of their own, seconds on
// a busy machine), and a port merely closed could meanwhile be taken by another listener or by
// an outgoing connection, of this process or another; the server would then fail to start. The
// port is still released before the server binds it; that window, the process's start, is an
// acceptable race on one machine.
func reserveAddr(t *testing.T) string {
	t.Helper()
	addrs, err := ports.Hold(1)
	must(t, err)
	t.Cleanup(func() { releaseAddrs(addrs...) })
	return addrs[0]
}

// releaseAddrs stops listening on addresses reserveAddr returned (none for an address it did
// not return or already released), for the server about to bind them.
func releaseAddrs(addrs ...string) { ports.Release(addrs...) }

func writeYAML(path string, v any) error {
	b, err := yaml.Marshal(v)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// poll calls f every pause of every until it holds or within has passed; it returns whether f
// held and how long the polling took. within is part of what the callers check, not only a stop
// for a hang, so it is looked at after each try that failed: a try begun within it counts, even
// one that ends after it.
func poll(within time.Duration, every time.Duration, f func() bool) (held bool, took time.Duration) {
	start := time.Now()
	_ = childproc.Poll(context.Background(), every, nil, func() bool {
		held = f()
		return held || time.Since(start) > within
	})
	return held, time.Since(start)
}
