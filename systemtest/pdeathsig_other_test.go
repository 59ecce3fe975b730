//go:build !linux

package systemtest

import "os/exec"

// setChildAttrs does nothing where the kernel offers no parent-death signal; t.Cleanup still
// kills every child of a test that ends normally.
func setChildAttrs(*exec.Cmd) {}
