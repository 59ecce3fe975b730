package childproc

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/proctorhq/proctor/config"
)

// child is this test binary run in mode (runChild), with this process's environment as Env
// leaves it.
func child(mode string) *exec.Cmd {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(Env(os.Environ()), childEnv+"="+mode)
	return cmd
}

// start starts the child in mode, its log in the test's temporary directory, killed when the
// test ends.
func start(t *testing.T, mode string) *Process {
	t.Helper()
	p, err := Start(child(mode), filepath.Join(t.TempDir(), mode+".log"), syscall.SIGKILL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Kill)
	return p
}

// exited waits for the child to exit. The bound only stops a test that would hang.
func exited(t *testing.T, p *Process) {
	t.Helper()
	select {
	case <-p.Done():
	case <-time.After(2 * time.Minute):
		t.Fatal("the child never exited")
	}
}

// waiting waits until the child's log says it waits for a signal. The bound only stops a test
// that would hang.
func waiting(t *testing.T, p *Process) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	switch err := Poll(ctx, 10*time.Millisecond, p.Done(), func() bool {
		b, _ := os.ReadFile(p.LogFile())
		return strings.Contains(string(b), "waiting")
	}); {
	case errors.Is(err, ErrExited):
		t.Fatalf("the child exited: %v", p.Err())
	case err != nil:
		t.Fatal("the child never said it was waiting")
	}
}

func TestEnvDropsProctorVariables(t *testing.T) {
	got := Env([]string{"PATH=/bin", "PROCTOR_SECRET=x", "PROCTOR_DATABASE_DSN=y", "HOME=/root", "XPROCTOR_Z=1", "PROCTOR=2"})
	if want := []string{"PATH=/bin", "HOME=/root", "XPROCTOR_Z=1", "PROCTOR=2"}; !slices.Equal(got, want) {
		t.Fatalf("Env = %q, want %q", got, want)
	}
	if proctorPrefix != config.EnvPrefix+"_" {
		t.Fatalf("the dropped prefix %q is not the configuration's %q", proctorPrefix, config.EnvPrefix+"_")
	}
}

// TestChildEnvironment: a child started with Env sees no PROCTOR_* variable of its parent, and
// every other one.
func TestChildEnvironment(t *testing.T) {
	t.Setenv("PROCTOR_SECRET", "inherited")
	t.Setenv("CHILDPROC_KEEP", "kept")
	p := start(t, "env")
	exited(t, p)
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p.LogFile())
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	if !slices.Contains(lines, "CHILDPROC_KEEP=kept") {
		t.Errorf("the child lacks CHILDPROC_KEEP:\n%s", b)
	}
	for _, kv := range lines {
		if strings.HasPrefix(kv, "PROCTOR_") {
			t.Errorf("the child was given %s", kv)
		}
	}
}

// TestExitAndTail: the exit state and the output are there once Done is closed.
func TestExitAndTail(t *testing.T) {
	p := start(t, "lines")
	if p.Pid() <= 0 {
		t.Fatalf("pid %d", p.Pid())
	}
	exited(t, p)
	if p.Running() {
		t.Fatal("running after Done")
	}
	if code := p.State().ExitCode(); code != 3 {
		t.Fatalf("exit code %d, want 3", code)
	}
	var exit *exec.ExitError
	if !errors.As(p.Err(), &exit) {
		t.Fatalf("Err = %v, want an *exec.ExitError", p.Err())
	}
	got, err := p.Tail(3)
	if err != nil || got != "line 8\nline 9\nline 10" {
		t.Fatalf("Tail(3) = %q, %v", got, err)
	}
	if got, err := Tail(p.LogFile(), 100); err != nil || !strings.HasPrefix(got, "line 1\n") || strings.Count(got, "\n") != 9 {
		t.Fatalf("Tail(100) = %q, %v", got, err)
	}
	if _, err := Tail(filepath.Join(t.TempDir(), "missing.log"), 3); err == nil {
		t.Fatal("Tail of a missing file gave no error")
	}
}

// TestStartFailure: a program that cannot start is an error, and no Process.
func TestStartFailure(t *testing.T) {
	cmd := exec.Command(filepath.Join(t.TempDir(), "no-such-program"))
	if p, err := Start(cmd, filepath.Join(t.TempDir(), "x.log"), 0); err == nil || p != nil {
		t.Fatalf("Start = %v, %v", p, err)
	}
}

// TestSignal: a signal reaches the child, which exits as it chooses to.
func TestSignal(t *testing.T) {
	p := start(t, "term")
	waiting(t, p)
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	exited(t, p)
	if code := p.State().ExitCode(); code != 7 {
		t.Fatalf("exit code %d after SIGTERM, want 7", code)
	}
}

// TestStop: a child that exits on the signal is not killed; one that ignores it is.
func TestStop(t *testing.T) {
	p := start(t, "term")
	waiting(t, p)
	if killed := p.Stop(syscall.SIGTERM, 2*time.Minute); killed {
		t.Fatal("a child that exits on SIGTERM was killed")
	}
	if p.Running() || p.State().ExitCode() != 7 {
		t.Fatalf("after Stop: running %v, state %v", p.Running(), p.State())
	}
	if killed := p.Stop(syscall.SIGTERM, time.Minute); killed {
		t.Fatal("a child already gone was killed")
	}

	q := start(t, "ignore")
	waiting(t, q)
	// However long the timeout, the child never exits by itself: it must be killed.
	if killed := q.Stop(syscall.SIGTERM, 50*time.Millisecond); !killed {
		t.Fatal("a child that ignores SIGTERM was not killed")
	}
	if q.Running() || q.State().Success() {
		t.Fatalf("after Stop: running %v, state %v", q.Running(), q.State())
	}
}

// TestKill: Kill returns once the child is gone, and does nothing the second time.
func TestKill(t *testing.T) {
	p := start(t, "ignore")
	if p.State() != nil || p.Err() != nil {
		t.Fatal("an exit state before the child exited")
	}
	p.Kill()
	if p.Running() {
		t.Fatal("running after Kill")
	}
	if ws, ok := p.State().Sys().(syscall.WaitStatus); ok && ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the child ended with %v, not SIGKILL", p.State())
	}
	p.Kill()
}
