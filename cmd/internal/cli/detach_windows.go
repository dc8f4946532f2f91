package cli

import (
	"os"
	"os/exec"
	"syscall"
)

const createNewProcessGroup = 0x00000200

// startDetached starts path with args so that it outlives reflect: its own process group,
// no inherited streams but out (nil: none) as stdout and stderr.
func startDetached(path string, args []string, out *os.File, _ int) (int, error) {
	c := exec.Command(path, args...)
	if out != nil {
		c.Stdout, c.Stderr = out, out
	}
	c.SysProcAttr = &syscall.SysProcAttr{CreationFlags: createNewProcessGroup}
	if err := c.Start(); err != nil {
		return 0, err
	}
	pid := c.Process.Pid
	c.Process.Release()
	return pid, nil
}
