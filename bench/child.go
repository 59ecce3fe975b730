package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/proctorhq/proctor/childproc"
	"github.com/proctorhq/proctor/config"
)

// target is the server under load: a `proctor serve` child process, or the same server built
// in this process (tests, and --in-process for a quick look).
type target interface {
	// usage reports the server's CPU time so far and its peak resident memory since the last
	// resetPeak; ok is false when the server shares this process, whose figures would mix
	// the load generator in.
	usage() (u Usage, ok bool)
	resetPeak()
	stop() error
}

// Usage is a server process's resource use.
type Usage struct {
	CPU     time.Duration
	PeakRSS int64 // bytes, since the last resetPeak (VmHWM)
	RSS     int64 // bytes, resident now (VmRSS)
}

// Timeouts of the server's life cycle.
const (
	readyTimeout = 30 * time.Second
	stopTimeout  = 15 * time.Second
)

// childServer is `proctor serve` run from the binary at exe.
type childServer struct {
	proc *childproc.Process
}

// startChild runs `exe serve --config configFile`, its output going to logFile, and waits until
// its internal listener answers /readyz. The kernel sends it SIGTERM if this process dies
// first (Linux), so that a crashed or killed bench never leaves a server behind.
func startChild(ctx context.Context, exe, configFile, logFile, internalAddr string) (*childServer, error) {
	cmd := exec.Command(exe, "serve", "--config", configFile)
	cmd.Env = childEnv(os.Environ())
	proc, err := childproc.Start(cmd, logFile, syscall.SIGTERM)
	if err != nil {
		return nil, err
	}
	c := &childServer{proc: proc}
	if err := waitReady(ctx, internalAddr, proc.Done()); err != nil {
		_ = c.stop()
		return nil, fmt.Errorf("%w\n%s", err, tail(logFile, 20))
	}
	return c, nil
}

// childEnv is env without PROCTOR_* variables (childproc.Env: the temporary configuration must
// be the whole truth), marked with nestedEnv.
func childEnv(env []string) []string {
	env = slices.DeleteFunc(childproc.Env(env), func(kv string) bool { return strings.HasPrefix(kv, nestedEnv+"=") })
	return append(env, nestedEnv+"=1")
}

// nestedEnv is set in the server's environment. Run refuses to start under it: if the binary
// given as the server is not `proctor` (a test binary, say) and calls Run again, the runs would
// otherwise nest without end, each starting another child. (Not PROCTOR_*: those are dropped.)
const nestedEnv = "BENCH_SERVER_CHILD"

// waitReady polls the server's /readyz (childproc.WaitReady) for readyTimeout.
func waitReady(ctx context.Context, internalAddr string, exited <-chan struct{}) error {
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{DialContext: loopbackDialer().DialContext}}
	defer client.CloseIdleConnections()
	return childproc.WaitReady(ctx, client, internalAddr, exited, readyTimeout)
}

func (c *childServer) usage() (Usage, bool) {
	cpu, err := processCPU(c.proc.Pid())
	if err != nil {
		return Usage{}, false
	}
	peak, rss, err := residentMemory(c.proc.Pid())
	if err != nil {
		return Usage{}, false
	}
	return Usage{CPU: cpu, PeakRSS: peak, RSS: rss}, true
}

// resetPeak sets the child's peak RSS back to its current RSS (writing 5 to clear_refs, Linux
// 4.0 and later), so that each scenario reports its own peak rather than the run's. Where the
// kernel refuses, the figure stays the peak since the server started.
func (c *childServer) resetPeak() {
	_ = os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", c.proc.Pid()), []byte("5"), 0)
}

// stop sends SIGTERM (the server drains and exits) and kills the process if it has not exited
// within stopTimeout. A server already gone is not reported again.
func (c *childServer) stop() error {
	if !c.proc.Running() {
		return nil
	}
	if c.proc.Stop(syscall.SIGTERM, stopTimeout) {
		return fmt.Errorf("the server did not stop within %s and was killed", stopTimeout)
	}
	err := c.proc.Err()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return fmt.Errorf("the server exited with %v\n%s", err, tail(c.proc.LogFile(), 20))
	}
	return err
}

// tail returns the last n lines of the server's log, for an error message ("" if it cannot be
// read).
func tail(path string, n int) string {
	lines, err := childproc.Tail(path, n)
	if err != nil {
		return ""
	}
	return "server log (" + path + "):\n" + lines
}

// inProcessServer is the server Deps.Serve runs inside this process.
type inProcessServer struct {
	cancel context.CancelFunc
	done   chan struct{}
	err    error // how serve ended, once done is closed
}

// startInProcess runs serve with cfg in this process and waits until its internal listener
// answers /readyz.
func startInProcess(ctx context.Context, serve func(context.Context, *config.Config) error, cfg *config.Config) (*inProcessServer, error) {
	if serve == nil {
		return nil, errors.New("bench: Deps.Serve is needed to serve in this process")
	}
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	p := &inProcessServer{cancel: cancel, done: make(chan struct{})}
	go func() {
		p.err = serve(sctx, cfg)
		close(p.done)
	}()
	if err := waitReady(ctx, cfg.Server.Internal.Addr, p.done); err != nil {
		return nil, errors.Join(err, p.stop())
	}
	return p, nil
}

func (p *inProcessServer) usage() (Usage, bool) { return Usage{}, false }
func (p *inProcessServer) resetPeak()           {}

func (p *inProcessServer) stop() error {
	p.cancel()
	<-p.done
	return p.err
}

// processCPU is the user plus system CPU time of a process, from /proc/<pid>/stat.
func processCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	return parseStatCPU(b, clockTicks())
}

// parseStatCPU reads utime and stime (fields 14 and 15, in clock ticks) of a /proc/<pid>/stat
// line. The command name (field 2) is in parentheses and may itself hold spaces and
// parentheses, so fields are counted from the last ')'.
func parseStatCPU(stat []byte, ticksPerSecond int64) (time.Duration, error) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, errors.New("malformed /proc stat")
	}
	f := strings.Fields(string(stat[i+1:]))
	// f[0] is field 3 (state), so field n is f[n-3].
	if len(f) < 13 {
		return 0, errors.New("malformed /proc stat")
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, fmt.Errorf("malformed /proc stat: %w", err)
	}
	ticks := utime + stime
	return time.Duration(ticks) * time.Second / time.Duration(ticksPerSecond), nil
}

// residentMemory is a process's peak resident set size since the last reset (VmHWM) and its
// resident set size now (VmRSS), from /proc/<pid>/status, in bytes.
func residentMemory(pid int) (peak, now int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	peak, err1 := parseStatusKB(bytes.NewReader(b), "VmHWM")
	now, err2 := parseStatusKB(bytes.NewReader(b), "VmRSS")
	return peak, now, errors.Join(err1, err2)
}

func parseVmHWM(r io.Reader) (int64, error) { return parseStatusKB(r, "VmHWM") }

// parseStatusKB reads a "Field:   1234 kB" line of /proc/<pid>/status, in bytes.
func parseStatusKB(r io.Reader, field string) (int64, error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), field+":")
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("malformed %s: %w", field, err)
		}
		return kb * 1024, nil
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("no %s in /proc status", field)
}

// atClkTck is the auxiliary-vector entry holding the kernel's clock ticks per second.
const atClkTck = 17

// clockTicks returns the unit of /proc/<pid>/stat's CPU times. The kernel passes it to every
// process in the auxiliary vector (what sysconf(_SC_CLK_TCK) reads); 100, the value on every
// common Linux build, when the vector cannot be read.
func clockTicks() int64 {
	b, err := os.ReadFile("/proc/self/auxv")
	if err != nil {
		return 100
	}
	return auxvValue(b, atClkTck, 100)
}

// auxvValue finds key in an auxiliary vector of native-endian word pairs.
func auxvValue(auxv []byte, key, fallback int64) int64 {
	word := strconv.IntSize / 8
	read := func(b []byte) uint64 {
		if word == 4 {
			return uint64(binary.NativeEndian.Uint32(b))
		}
		return binary.NativeEndian.Uint64(b)
	}
	for i := 0; i+2*word <= len(auxv); i += 2 * word {
		k, v := read(auxv[i:]), read(auxv[i+word:])
		if k == 0 {
			break
		}
		if int64(k) == key && v > 0 {
			return int64(v)
		}
	}
	return fallback
}
