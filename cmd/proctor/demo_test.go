package main

import (
	"net"
	"os/exec"
	"strings"
	"testing"
)

// TestDemoOnATakenPort checks that the demo, finding its public or internal port taken, says
// which port and what to do, prints no banner, and exits non-zero.
func TestDemoOnATakenPort(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	_, port, _ := net.SplitHostPort(taken.Addr().String())
	for _, flags := range [][]string{
		{"--addr", taken.Addr().String(), "--internal-addr", "127.0.0.1:0"},
		{"--addr", "127.0.0.1:0", "--internal-addr", taken.Addr().String()},
	} {
		args := append([]string{"demo", "--data-dir", t.TempDir()}, flags...)
		code, out, stderr := runCmd(t, "", args...)
		if code != exitFailure {
			t.Errorf("%v: exit %d, want %d", flags, code, exitFailure)
		}
		if !strings.Contains(stderr, "port "+port+" is already in use") || !strings.Contains(stderr, "make run PORT=") {
			t.Errorf("%v: stderr does not name port %s and the way out:\n%s", flags, port, stderr)
		}
		if strings.Contains(out, "is running") {
			t.Errorf("%v: the banner was printed before the failure:\n%s", flags, out)
		}
	}
}

// TestMakeRunPort checks that `make run PORT=...` hands the port to the demo, the internal
// listener on the next one.
func TestMakeRunPort(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	out, err := exec.Command("make", "-s", "-n", "-C", "../..", "run", "PORT=9090").CombinedOutput()
	if err != nil {
		t.Fatalf("make -n run: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "demo --addr 127.0.0.1:9090 --internal-addr 127.0.0.1:9091") {
		t.Errorf("make run PORT=9090 runs:\n%s", out)
	}
}
