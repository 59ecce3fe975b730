package bench

import (
	"os/exec"
	"syscall"
)

// setChildAttrs has the kernel send the server SIGTERM if this process dies first, so that a
// crashed or killed bench never leaves a server behind.
func setChildAttrs(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
