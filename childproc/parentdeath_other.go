//go:build !linux

package childproc

import (
	"os/exec"
	"syscall"
)

// setParentDeath does nothing: only Linux can tie a child's life to its parent's. Elsewhere
// the caller's own stop (Kill, Stop) is the only guard, and a parent that dies without it
// leaves the child running.
func setParentDeath(*exec.Cmd, syscall.Signal) {}
