package systemtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/proctorhq/proctor/bench/flow"
	"github.com/proctorhq/proctor/childproc"
)

// startupBound bounds every wait of the start-up tests: generous, because a busy machine may
// take long to start a process or answer a probe, and nothing here measures speed.
const startupBound = 3 * time.Minute

// TestStartupWaitsForTheDatabase starts `proctor serve --migrate` while the database address
// refuses connections (a proxy port that is closed), checks that the process stays alive and
// says so on the internal listener while it retries, logging each attempt, with nothing on the
// public address; then opens the proxy and checks that the server migrates the empty schema,
// becomes ready and serves a sign-in and a grant.
func TestStartupWaitsForTheDatabase(t *testing.T) {
	needPostgres(t)
	ctx := t.Context()
	proxy := newTCPProxy(postgresTarget(t))
	// Fix the proxy's port, then close it: the server is given an address where nothing listens.
	must(t, proxy.up())
	proxy.cut()
	t.Cleanup(proxy.cut)

	public := reserveAddr(t)
	d := newDeployment(t, public, func(dsn string) string { return viaProxy(t, dsn, proxy.addr) })
	R := d.newReplica("S", public)
	releaseAddrs(R.public, R.internal)
	p := launchProcess(t, R.name, binary, "serve", "--config", R.configFile, "--migrate")

	p.await(t, "/healthz 200 while the database is unreachable", func() bool {
		code, _ := probeInternal(R, "/healthz")
		return code == http.StatusOK
	})
	p.await(t, "three attempts logged", func() bool { return len(p.logLines("database unreachable: retrying")) >= 3 })
	for i, line := range p.logLines("database unreachable: retrying")[:3] {
		var rec struct {
			Level   string
			Attempt int
			Error   string
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil || rec.Level != "WARN" || rec.Attempt != i+1 || rec.Error == "" {
			t.Errorf("retry line %d: %s (%v), want a warning naming attempt %d and its error", i+1, line, err, i+1)
		}
	}
	if code, status := probeInternal(R, "/readyz"); code != http.StatusServiceUnavailable || status != "starting" {
		t.Errorf("/readyz while the database is unreachable: %d %q, want 503 \"starting\"", code, status)
	}
	// Nothing listens on the public address until the server can answer (docs/deployment.md).
	if c, err := net.DialTimeout("tcp", public, requestTimeout); err == nil {
		c.Close()
		t.Errorf("the public address %s accepts connections before the database was reached", public)
	}
	if !p.Running() {
		t.Fatalf("the server exited while the database was unreachable\n%s", p.tail(30))
	}

	must(t, proxy.up())
	t.Logf("database reachable on %s", proxy.addr)
	p.await(t, "/readyz 200 after the database came up", func() bool {
		code, _ := probeInternal(R, "/readyz")
		return code == http.StatusOK
	})
	if len(p.logLines(`"msg":"database reachable"`)) != 1 || len(p.logLines(`"msg":"applied migrations"`)) != 1 {
		t.Errorf("no log line for the database reached and the migrations applied\n%s", p.tail(30))
	}

	// The schema serve --migrate made is the one the other commands expect: `proctor migrate`
	// finds nothing to do, and the school is set up and used through the public listener.
	s := d.setUp(R.configFile, false)
	c := newBrowser(s).at(R)
	if err := c.login(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Grant(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestStartupGivesUp: with a short database.startup_timeout and nothing listening at the
// database address, `proctor serve` exits non-zero saying why.
func TestStartupGivesUp(t *testing.T) {
	needPostgres(t)
	public := reserveAddr(t)
	nowhere := freeAddr(t)
	d := newDeployment(t, public, func(dsn string) string { return viaProxy(t, dsn, nowhere) })
	d.startupTimeout = "2s"
	R := d.newReplica("S", public)
	releaseAddrs(R.public, R.internal)
	p := launchProcess(t, R.name, binary, "serve", "--config", R.configFile)

	state, ok := p.wait(startupBound)
	if !ok {
		t.Fatalf("still running %s after it was started with database.startup_timeout 2s\n%s", startupBound, p.tail(30))
	}
	if state.ExitCode() == 0 {
		t.Errorf("exit status 0, want non-zero\n%s", p.tail(30))
	}
	msg := p.logLines("proctor: database unreachable after")
	if len(msg) != 1 || !strings.Contains(msg[0], "database.startup_timeout") {
		t.Errorf("no message naming the cause and the setting on stderr\n%s", p.tail(30))
	}
}

// await polls f until it holds, for at most startupBound; it fails the test if the process
// exits first or the bound passes.
func (p *process) await(t *testing.T, what string, f func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), startupBound)
	defer cancel()
	switch err := childproc.Poll(ctx, pollEvery, p.Done(), f); {
	case errors.Is(err, childproc.ErrExited):
		t.Fatalf("%s exited while waiting for %s\n%s", p.name, what, p.tail(30))
	case err != nil:
		t.Fatalf("%s: not within %s\n%s", what, startupBound, p.tail(30))
	}
}

// logLines returns the lines of the process's log that contain s.
func (p *process) logLines(s string) []string {
	b, err := os.ReadFile(p.LogFile())
	if err != nil {
		return nil
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return out
}

// probeInternal GETs path on the replica's internal listener and returns the status code and
// the body's "status" field; code 0 when nothing answered.
func probeInternal(r *replica, path string) (code int, status string) {
	c := &http.Client{Timeout: requestTimeout, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Get(fmt.Sprintf("http://%s%s", r.internal, path))
	if err != nil {
		return 0, ""
	}
	defer resp.Body.Close()
	var body struct{ Status string }
	b, _ := io.ReadAll(io.LimitReader(resp.Body, flow.DefaultMaxBody))
	_ = json.Unmarshal(b, &body)
	return resp.StatusCode, body.Status
}
