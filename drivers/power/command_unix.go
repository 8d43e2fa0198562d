//go:build unix

package power

import (
	"os/exec"
	"syscall"
)

// killGroup runs cmd in its own process group and, on cancellation,
// kills the whole group, so that a shell's children (a sleep, an ssh)
// die with it.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
