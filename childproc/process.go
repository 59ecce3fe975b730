package childproc

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Process is a started child. Its exit is watched from the start, so that Done closes as soon
// as it is gone, whoever is waiting.
type Process struct {
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	// Set before done is closed.
	state *os.ProcessState
	err   error
}

// Start starts cmd with its standard output and standard error going to the file at log
// (created, or truncated), and, on Linux, has the kernel send it parentDeath if this process
// dies first (0 sends nothing). The rest of cmd (arguments, Env, Dir) is the caller's; Env
// gives this process's environment without PROCTOR_* variables.
func Start(cmd *exec.Cmd, log string, parentDeath syscall.Signal) (*Process, error) {
	out, err := os.Create(log)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = out, out
	setParentDeath(cmd, parentDeath)
	if err := cmd.Start(); err != nil {
		out.Close()
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	p := &Process{cmd: cmd, log: log, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		p.state = cmd.ProcessState
		out.Close()
		close(p.done)
	}()
	return p, nil
}

// Pid is the child's process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// LogFile is the path of the file the child's output goes to.
func (p *Process) LogFile() string { return p.log }

// Done is closed once the child has exited and its exit is recorded (State, Err).
func (p *Process) Done() <-chan struct{} { return p.done }

// State is the child's exit state: nil until Done is closed.
func (p *Process) State() *os.ProcessState {
	if p.Running() {
		return nil
	}
	return p.state
}

// Err is what waiting for the child returned (an *exec.ExitError for a non-zero exit or a
// death by signal): nil until Done is closed.
func (p *Process) Err() error {
	if p.Running() {
		return nil
	}
	return p.err
}

// Running reports whether the child has not exited.
func (p *Process) Running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// Signal sends sig to the child.
func (p *Process) Signal(sig os.Signal) error { return p.cmd.Process.Signal(sig) }

// Kill sends SIGKILL, if the child still runs, and returns once it is gone.
func (p *Process) Kill() {
	if !p.Running() {
		return
	}
	_ = p.cmd.Process.Kill()
	<-p.done
}

// Stop sends sig (SIGTERM, say: the server drains and exits) and waits for the child to exit;
// if it has not after timeout, it is killed. Stop returns once the child is gone, and killed
// reports whether it had to be killed. A child already gone is left as it is.
func (p *Process) Stop(sig os.Signal, timeout time.Duration) (killed bool) {
	if !p.Running() {
		return false
	}
	_ = p.cmd.Process.Signal(sig)
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-p.done:
		return false
	case <-timer.C:
		p.Kill()
		return true
	}
}

// Tail returns the child's last n lines of output (Tail of its log file).
func (p *Process) Tail(n int) (string, error) { return Tail(p.log, n) }

// Tail returns the last n lines of the file at path, for an error message.
func Tail(path string, n int) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n"), nil
}
