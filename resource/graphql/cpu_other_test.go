//go:build !unix

package graphql_test

import "time"

// cpuTime: the process's CPU time is read on Unix only; elsewhere the benchmarks report no
// cpu-ns/op.
func cpuTime() (time.Duration, bool) { return 0, false }
