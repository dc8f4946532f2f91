package cli

import (
	"os/exec"
	"syscall"
)

const createNewProcessGroup = 0x00000200

// detach makes c outlive reflect: its own process group, no inherited streams.
func detach(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{CreationFlags: createNewProcessGroup}
}
