package systemtest

import (
	"fmt"
	"os"
	"testing"

	"github.com/proctorhq/proctor/internal/testbin"
	"github.com/proctorhq/proctor/storage/gormstore/storetest"
)

// binary is the `proctor` executable TestMain built; "" when the tests skip.
var binary string

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
	root, err := testbin.Root()
	if err == nil {
		binary, err = testbin.Build(root, dir)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "systemtest:", err)
		return 1
	}
	return m.Run()
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
