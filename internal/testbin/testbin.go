package testbin

import (
	"fmt"
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
	exe, err := Build(ModuleRoot(t), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// Build compiles ./cmd/proctor of the module at root into dir (for a TestMain, which has no
// testing.TB) and returns the binary's path.
func Build(root, dir string) (string, error) {
	exe := filepath.Join(dir, "proctor")
	cmd := exec.Command("go", "build", "-o", exe, "./cmd/proctor")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/proctor: %v\n%s", err, out)
	}
	return exe, nil
}

// ModuleRoot is the directory of the go.mod the test runs under.
func ModuleRoot(t testing.TB) string {
	t.Helper()
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// Root is ModuleRoot for a TestMain.
func Root() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	gomod := strings.TrimSpace(string(out))
	if err != nil || gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("go env GOMOD: not inside the module (%v)", err)
	}
	return filepath.Dir(gomod), nil
}
