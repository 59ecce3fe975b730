//go:build !linux

package bench

import "os/exec"

// setChildAttrs: only Linux can tie the child's life to ours; elsewhere stop() is the only
// guard.
func setChildAttrs(*exec.Cmd) {}
