package childproc

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestChildDiesWithItsParent: a child started with a parent-death signal is gone once its
// parent exits without stopping it. The test starts a parent (this binary in "parent" mode),
// which starts the child and exits.
func TestChildDiesWithItsParent(t *testing.T) {
	childLog := filepath.Join(t.TempDir(), "grandchild.log")
	cmd := child("parent")
	cmd.Env = append(cmd.Env, "CHILDPROC_TEST_LOG="+childLog)
	parent, err := Start(cmd, filepath.Join(t.TempDir(), "parent.log"), 0)
	if err != nil {
		t.Fatal(err)
	}
	exited(t, parent)
	out, _ := os.ReadFile(parent.LogFile())
	if err := parent.Err(); err != nil {
		t.Fatalf("parent: %v\n%s", err, out)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("parent said %q", out)
	}
	// Dead is gone or a zombie: the child was reparented, and whether its new parent reaps it
	// is not this package's business. The bound only stops a test that would hang.
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if err := Poll(ctx, 10*time.Millisecond, nil, func() bool { return dead(pid) }); err != nil {
		_ = killPid(pid)
		t.Fatalf("the child %d outlived its parent", pid)
	}
}

// dead reports whether process pid is gone or a zombie, from /proc/<pid>/stat.
func dead(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if errors.Is(err, os.ErrNotExist) {
		return true
	}
	i := bytes.LastIndexByte(b, ')')
	return err == nil && i >= 0 && i+2 < len(b) && b[i+2] == 'Z'
}

func killPid(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}
