//go:build !unix

package mcp

import "testing"

// MeasureCPU reports nothing where the process's CPU time is not read (see cpu_unix_test.go).
func MeasureCPU(*testing.B) (stop func()) { return func() {} }
