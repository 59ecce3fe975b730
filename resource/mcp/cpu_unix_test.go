//go:build unix

package mcp

import (
	"syscall"
	"testing"
	"time"
)

// MeasureCPU reports the CPU time the test process spends per iteration of a benchmark loop
// (user and system, every thread: the server's, the client's, the collector's), as
// "cpu-ns/op". On a machine shared with other work the time a loop takes grows with the
// others' load; the CPU it uses much less. Call it before the loop and the returned function
// after it.
func MeasureCPU(b *testing.B) (stop func()) {
	start := processCPU(b)
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(processCPU(b)-start)/float64(b.N), "cpu-ns/op")
		}
	}
}

func processCPU(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
