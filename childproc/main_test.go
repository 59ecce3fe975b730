package childproc

import (
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// childEnv chooses what this test binary does when a test starts it as a child (a real
// process, not a function of the test's): one of the modes of runChild. The name is not
// PROCTOR_*, so Env keeps it.
const childEnv = "CHILDPROC_TEST_CHILD"

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(runChild(mode))
	}
	os.Exit(m.Run())
}

// childLife bounds how long a test child waits for a signal: only a test run that went wrong
// and did not stop it reaches it.
const childLife = 10 * time.Minute

// runChild is the child's part, by mode:
//   - env: prints its environment, a variable a line, and exits 0.
//   - lines: prints "line 1" to "line 10" and exits 3.
//   - term: exits 7 on SIGTERM; prints "waiting" once it listens for the signal.
//   - ignore: ignores SIGTERM (only SIGKILL ends it); prints "waiting" once it does.
//   - parent: starts a "term" child of its own with parent-death signal SIGKILL, prints its pid
//     and exits without stopping it.
func runChild(mode string) int {
	switch mode {
	case "env":
		for _, kv := range os.Environ() {
			fmt.Println(kv)
		}
		return 0
	case "lines":
		for i := 1; i <= 10; i++ {
			fmt.Println("line", i)
		}
		return 3
	case "term":
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGTERM)
		fmt.Println("waiting")
		select {
		case <-sig:
			return 7
		case <-time.After(childLife):
			return 1
		}
	case "ignore":
		signal.Ignore(syscall.SIGTERM)
		fmt.Println("waiting")
		time.Sleep(childLife)
		return 1
	case "parent":
		p, err := Start(child("term"), os.Getenv("CHILDPROC_TEST_LOG"), syscall.SIGKILL)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println(strconv.Itoa(p.Pid()))
		return 0
	}
	fmt.Fprintln(os.Stderr, "unknown mode", mode)
	return 2
}
