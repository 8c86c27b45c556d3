//go:build go1.20

package isolation

import (
	"os/exec"
	"syscall"
)

// stopGracefully: a command made with exec.CommandContext is stopped, when
// its context is done, by SIGTERM to cordon (which ends the sandbox and
// runs its post-run checks), and killed only StopGrace later (WaitDelay).
func stopGracefully(cmd *exec.Cmd) {
	if cmd.Cancel == nil {
		return // exec.Command: no context
	}
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	if cmd.WaitDelay == 0 {
		cmd.WaitDelay = StopGrace
	}
}

func takeContext(cmd *exec.Cmd) func() { return func() {} }
func waited(cmd *exec.Cmd)             {}
