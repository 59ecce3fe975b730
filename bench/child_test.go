package bench

import (
	"encoding/binary"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseStatCPU(t *testing.T) {
	// A command name with spaces and parentheses: fields are counted from the last ')'.
	stat := "4242 (proc (x) y) S 1 4242 4242 0 -1 4194560 1234 0 0 0 250 75 0 0 20 0 9 0 100 200000 3000 18446744073709551615\n"
	got, err := parseStatCPU([]byte(stat), 100)
	if err != nil {
		t.Fatal(err)
	}
	if want := 3250 * time.Millisecond; got != want {
		t.Fatalf("cpu = %s, want %s (250 + 75 ticks at 100/s)", got, want)
	}
	if _, err := parseStatCPU([]byte("4242 (broken"), 100); err == nil {
		t.Fatal("a stat line without ')' was accepted")
	}
	if _, err := parseStatCPU([]byte("1 (x) S 1 2"), 100); err == nil {
		t.Fatal("a short stat line was accepted")
	}
}

func TestParseVmHWM(t *testing.T) {
	status := "Name:\tproctor\nVmPeak:\t  900000 kB\nVmHWM:\t   52480 kB\nVmRSS:\t   40000 kB\n"
	got, err := parseVmHWM(strings.NewReader(status))
	if err != nil || got != 52480*1024 {
		t.Fatalf("VmHWM = %d, %v", got, err)
	}
	if _, err := parseVmHWM(strings.NewReader("Name:\tx\n")); err == nil {
		t.Fatal("a status without VmHWM was accepted")
	}
	if got, err := parseStatusKB(strings.NewReader(status), "VmRSS"); err != nil || got != 40000*1024 {
		t.Fatalf("VmRSS = %d, %v", got, err)
	}
}

func TestAuxvValue(t *testing.T) {
	word := strconv.IntSize / 8
	put := func(b []byte, v uint64) {
		if word == 4 {
			binary.NativeEndian.PutUint32(b, uint32(v))
		} else {
			binary.NativeEndian.PutUint64(b, v)
		}
	}
	pairs := [][2]uint64{{6, 4096}, {atClkTck, 250}, {0, 0}}
	auxv := make([]byte, len(pairs)*2*word)
	for i, p := range pairs {
		put(auxv[i*2*word:], p[0])
		put(auxv[i*2*word+word:], p[1])
	}
	if got := auxvValue(auxv, atClkTck, 100); got != 250 {
		t.Fatalf("AT_CLKTCK = %d, want 250", got)
	}
	if got := auxvValue(auxv[:2*word], atClkTck, 100); got != 100 {
		t.Fatalf("missing entry: %d, want the fallback", got)
	}
}

// TestOwnProcessFigures reads this test process's /proc files, as the command reads the
// server's.
func TestOwnProcessFigures(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc here")
	}
	// Burn CPU until the figure moves off zero: how much wall time that takes depends on how
	// busy the machine is, so the loop waits for the figure, not for a time.
	cpu, err := processCPU(os.Getpid())
	for x := 0; err == nil && cpu <= 0; x++ {
		_ = strconv.Itoa(x)
		if x%100000 == 0 {
			cpu, err = processCPU(os.Getpid())
		}
	}
	if err != nil || cpu <= 0 {
		t.Fatalf("cpu = %s, %v", cpu, err)
	}
	peak, rss, err := residentMemory(os.Getpid())
	if err != nil || peak < 1<<20 || rss < 1<<20 || rss > peak {
		t.Fatalf("peak RSS = %d, RSS = %d, %v", peak, rss, err)
	}
	if ticks := clockTicks(); ticks <= 0 {
		t.Fatalf("clock ticks = %d", ticks)
	}
}

func TestChildEnvDropsProctorSettings(t *testing.T) {
	got := childEnv([]string{"PATH=/bin", "PROCTOR_SECRET=x", "PROCTOR_DATABASE_DSN=y", "HOME=/root", "XPROCTOR_Z=1"})
	if strings.Join(got, " ") != "PATH=/bin HOME=/root XPROCTOR_Z=1 "+nestedEnv+"=1" {
		t.Fatalf("env = %q", got)
	}
}

// TestNestedRunIsRefused: a run started from a bench server's environment stops at once.
func TestNestedRunIsRefused(t *testing.T) {
	t.Setenv(nestedEnv, "1")
	tmp := t.TempDir()
	if _, err := Run(t.Context(), Options{InProcess: true, TempDir: tmp}, testDeps); err == nil {
		t.Fatal("a nested run was started")
	}
	if entries, _ := os.ReadDir(tmp); len(entries) > 0 {
		t.Fatal("a nested run created files")
	}
}
