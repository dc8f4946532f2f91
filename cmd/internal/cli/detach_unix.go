//go:build !windows

package cli

import (
	"os/exec"
	"syscall"
)

// detach makes c outlive reflect and its terminal: a new session, no inherited streams.
func detach(c *exec.Cmd) { c.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
