//go:build !windows

package cli

import (
	"os"
	"syscall"
)

// startDetached starts path with args so that it outlives reflect and its terminal: a new
// session, stdin on /dev/null, stdout and stderr on out (nil: /dev/null), at priority nice
// (10 for background work; 0 for a resident engine, which answers hooks the agent waits on). It calls syscall.ForkExec rather than os/exec: the first os/exec start
// of a process probes pidfd support with a child of its own and opens /dev/null once per
// stream, and a hook starts at most one process, as its last step (the Stop hook's history
// import): 0.17–0.27 ms for the first start in a new process against 0.22–0.45 through
// os/exec (this machine, quiet).
func startDetached(path string, args []string, out *os.File, nice int) (int, error) {
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return 0, err
	}
	defer null.Close()
	w := null
	if out != nil {
		w = out
	}
	inheritNothing()
	pid, err := syscall.ForkExec(path, append([]string{path}, args...), &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: []uintptr{null.Fd(), w.Fd(), w.Fd()},
		Sys:   &syscall.SysProcAttr{Setsid: true},
	})
	if err == nil {
		// background work yields to the agent and to the hook that started it, which still
		// has to exit: the process is already running (ld.so, the Go runtime) as ForkExec
		// returns, and on two cores it competed with its parent's last steps
		syscall.Setpriority(syscall.PRIO_PROCESS, pid, nice)
	}
	return pid, err
}
