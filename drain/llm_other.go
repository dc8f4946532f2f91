//go:build !unix

package drain

import "os/exec"

// setProcessGroup does nothing where there are no process groups to set.
func setProcessGroup(*exec.Cmd) {}

// killProcessGroup kills the child; what it started may outlive it on this system.
func killProcessGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
