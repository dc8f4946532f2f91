//go:build unix

package e2e

import (
	"os"
	"runtime"
	"syscall"
)

// maxRSS is the peak resident set of a finished child, in bytes. Read from a child of the
// test process it is at least the test's own peak (see measured): use it on a child of a
// fresh process.
func maxRSS(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return ru.Maxrss // bytes there, KB elsewhere
	}
	return ru.Maxrss << 10
}
