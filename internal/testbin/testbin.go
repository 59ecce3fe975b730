package testbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Proctor compiles ./cmd/proctor of the module the test runs in into a temporary directory
// and returns the binary's path. The test fails with the compiler's output if it does not
// build.
func Proctor(t testing.TB) string {
	t.Helper()
	root := ModuleRoot(t)
	exe := filepath.Join(t.TempDir(), "proctor")
	cmd := exec.Command("go", "build", "-o", exe, "./cmd/proctor")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/proctor: %v\n%s", err, out)
	}
	return exe
}

// ModuleRoot is the directory of the go.mod the test runs under.
func ModuleRoot(t testing.TB) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	gomod := strings.TrimSpace(string(out))
	if err != nil || gomod == "" || gomod == os.DevNull {
		t.Fatalf("go env GOMOD: not inside the module (%v)", err)
	}
	return filepath.Dir(gomod)
}
