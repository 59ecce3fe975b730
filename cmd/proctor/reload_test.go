package main

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/proctorhq/proctor/childproc"
	"github.com/proctorhq/proctor/internal/testbin"
)

// servedProcess is `proctor serve` running as its own process on loopback.
type servedProcess struct {
	t      *testing.T
	proc   *childproc.Process
	public string
}

// startServeProcess runs the proctor binary exe as `proctor serve --migrate` with the server
// file, on SQLite in a temp dir, until SIGTERM at the test's end (killed if it has not exited a
// minute later, or at once if the test process dies, on Linux).
func startServeProcess(t *testing.T, exe, serverFile string, public string) *servedProcess {
	t.Helper()
	cmd := exec.Command(exe, "--config", serverFile, "serve", "--migrate")
	cmd.Env = childproc.Env(os.Environ())
	proc, err := childproc.Start(cmd, filepath.Join(t.TempDir(), "serve.log"), syscall.SIGKILL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proc.Stop(syscall.SIGTERM, time.Minute) })
	return &servedProcess{t: t, proc: proc, public: public}
}

// output is all the process has written so far.
func (p *servedProcess) output() string {
	b, err := os.ReadFile(p.proc.LogFile())
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// serveOneSchool lays out a deployment in a temp dir, on SQLite with one school file for the
// school at host and extra at the end of the server file, starts `proctor serve` on it and waits
// until the school answers. It returns the process and the schools directory, where a test may
// change the school files. With -short it skips the test instead.
func serveOneSchool(t *testing.T, host, extra string) (*servedProcess, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	root := t.TempDir()
	dir := filepath.Join(root, "schools")
	mustMkdir(t, dir)
	writeSchool(t, dir, "a.yaml", 1, host)
	// Built before the ports are chosen, and the ports held until just before the process
	// starts: a port merely chosen is free only until something else takes it, and a build on a
	// busy machine takes seconds, in which another test's listener may take one.
	exe := testbin.Proctor(t)
	ports := reservePorts(t, 2)
	server := filepath.Join(root, "proctor.yaml")
	secret := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte("r"), 32))
	mustWriteFile(t, server, []byte(fmt.Sprintf("public: {addr: %q}\ninternal: {addr: %q}\ndatabase: {driver: sqlite, dsn: %s}\nschools_dir: %s\nsecret: %s\nlog: {level: info, format: text}\n%s",
		ports[0], ports[1], filepath.Join(root, "p.db"), dir, secret, extra)), 0o600)
	loopbackPorts.Release(ports...)
	p := startServeProcess(t, exe, server, ports[0])
	p.answers(host)
	return p, dir
}

// discovery fetches the discovery document of the school served at host and returns its status
// and body (0 when the listener does not answer).
func (p *servedProcess) discovery(host string) (int, string) {
	return p.get(host, "/.well-known/openid-configuration", nil)
}

// get sends GET path, with header, to the school served at host and returns the status and body
// of the answer (0 and the error when the listener does not answer).
func (p *servedProcess) get(host, path string, header http.Header) (int, string) {
	code, body, err := fetch(http.MethodGet, "http://"+p.public+path, host, header, "")
	if err != nil {
		return 0, err.Error()
	}
	return code, body
}

// eventually polls cond until it holds, failing the test with the process's output when it
// has not after a generous deadline or when the process exits first. Nothing is timed: the
// deadline only stops a test that would otherwise hang.
func (p *servedProcess) eventually(what string, cond func() bool) {
	p.t.Helper()
	switch err := poll(p.proc.Done(), cond); {
	case errors.Is(err, childproc.ErrExited):
		p.t.Fatalf("the process exited before %s:\n%s", what, p.output())
	case err != nil:
		p.t.Fatalf("never %s; the process said:\n%s", what, p.output())
	}
}

// answers waits until the school at host serves its discovery document with its own issuer.
func (p *servedProcess) answers(host string) {
	p.t.Helper()
	p.eventually("the school at "+host+" answered its discovery document", func() bool {
		code, body := p.discovery(host)
		return code == http.StatusOK && strings.Contains(body, `"issuer":"http://`+host+`"`)
	})
}

func (p *servedProcess) hangUp() {
	p.t.Helper()
	if err := p.proc.Signal(syscall.SIGHUP); err != nil {
		p.t.Fatalf("SIGHUP: %v\n%s", err, p.output())
	}
}

func writeSchool(t *testing.T, dir, name string, id int, host string) {
	t.Helper()
	body := fmt.Sprintf("school_id: %d\nsubdomain: s%d\nname: School %d\nbase_url: http://%s\n", id, id, id, host)
	mustWriteFile(t, filepath.Join(dir, name), []byte(body), 0o600)
}

// TestReloadOnHangup: SIGHUP makes a running server serve a school file added since it started;
// a later SIGHUP with an invalid file keeps the running schools and logs every problem; once the
// files are valid again, a changed file's settings apply and a removed file's school is gone.
func TestReloadOnHangup(t *testing.T) {
	const hostA, hostB, hostC = "127.0.0.1:18081", "127.0.0.1:18082", "127.0.0.1:18083"
	p, dir := serveOneSchool(t, hostA, "")
	if code, _ := p.discovery(hostB); code != http.StatusNotFound {
		t.Fatalf("school B is served before its file exists: %d", code)
	}

	writeSchool(t, dir, "b.yaml", 2, hostB)
	p.hangUp()
	p.answers(hostB)
	p.answers(hostA)

	// An invalid file: an unknown key and a bad school_id, both reported; the running set stays.
	mustWriteFile(t, filepath.Join(dir, "c.yaml"), []byte(fmt.Sprintf("school_id: -1\nsubdomain: c\nnmae: C\nbase_url: http://%s\n", hostC)), 0o600)
	p.hangUp()
	p.eventually("the reload was refused", func() bool { return strings.Contains(p.output(), "reload refused") })
	out := p.output()
	for _, want := range []string{`c.yaml: unknown key \"nmae\"`, "c.yaml: school_id: is required", "c.yaml: name: is required"} {
		if !strings.Contains(out, want) {
			t.Errorf("the log does not name the problem %q:\n%s", want, out)
		}
	}
	p.answers(hostA)
	p.answers(hostB)
	if code, _ := p.discovery(hostC); code != http.StatusNotFound {
		t.Errorf("the invalid school is served: %d", code)
	}

	// Every file valid again, with a changed file and a removed one: A's ID tokens switched on
	// (its discovery document gains jwks_uri), B's file gone (404, like any unknown host).
	if _, body := p.discovery(hostA); strings.Contains(body, `"jwks_uri"`) {
		t.Fatalf("school A lists jwks_uri before its change:\n%s", body)
	}
	for _, name := range []string{"c.yaml", "b.yaml"} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	body := fmt.Sprintf("school_id: 1\nsubdomain: s1\nname: School 1\nbase_url: http://%s\nfeatures: {id_tokens: true}\n", hostA)
	mustWriteFile(t, filepath.Join(dir, "a.yaml"), []byte(body), 0o600)
	p.hangUp()
	p.eventually("school A's change applied", func() bool {
		code, body := p.discovery(hostA)
		return code == http.StatusOK && strings.Contains(body, `"jwks_uri"`)
	})
	if code, _ := p.discovery(hostB); code != http.StatusNotFound {
		t.Errorf("school B is served after its file was removed: %d", code)
	}
}
