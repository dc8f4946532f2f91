//go:build !unix

package procgroup

import "os/exec"

// Set does nothing where there are no process groups to set.
func Set(*exec.Cmd) {}

// Kill kills the child; what it started may outlive it on this system.
func Kill(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
