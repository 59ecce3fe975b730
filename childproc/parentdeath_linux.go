package childproc

import (
	"os/exec"
	"syscall"
)

// setParentDeath has the kernel send the child sig if this process dies first, so that a
// crashed or killed parent never leaves a child behind. (The kernel watches the thread that
// started the child; Go's threads live as long as the process unless a goroutine locked to
// one exits, which nothing here does.)
func setParentDeath(cmd *exec.Cmd, sig syscall.Signal) {
	if sig == 0 {
		return
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = sig
}
