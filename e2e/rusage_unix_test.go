//go:build unix

package e2e

import (
	"os"
	"runtime"
	"syscall"
)

// maxRSS is the peak resident set of a finished child, in bytes.
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
