package systemtest

import (
	"os/exec"
	"syscall"
)

// setChildAttrs has the kernel kill a child if the test process dies first, so that an
// interrupted test run never leaves a server behind.
func setChildAttrs(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
