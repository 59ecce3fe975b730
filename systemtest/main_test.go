package systemtest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/proctorhq/proctor/storage/gormstore/storetest"
)

// binary is the `proctor` executable TestMain built; "" when the tests skip.
var binary string

// buildTimeout bounds `go build` of the binary.
const buildTimeout = 5 * time.Minute

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	if os.Getenv(storetest.PostgresDSNEnv) == "" {
		// Every test skips; building the binary would be wasted.
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "proctor-systemtest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "systemtest:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	binary, err = build(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "systemtest:", err)
		return 1
	}
	return m.Run()
}

// build compiles ./cmd/proctor from the module root into dir.
func build(dir string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("go env GOMOD: not inside the module")
	}
	exe := filepath.Join(dir, "proctor")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", exe, "./cmd/proctor")
	cmd.Dir = filepath.Dir(gomod)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build ./cmd/proctor: %w\n%s", err, stderr.String())
	}
	return exe, nil
}

// needPostgres skips the test when no PostgreSQL server is configured.
func needPostgres(t *testing.T) {
	t.Helper()
	if os.Getenv(storetest.PostgresDSNEnv) == "" {
		t.Skipf("%s is not set: the system tests need PostgreSQL", storetest.PostgresDSNEnv)
	}
	if binary == "" {
		t.Fatal("the proctor binary was not built")
	}
}
