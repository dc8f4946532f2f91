//go:build unix

package main

import (
	"syscall"
	"time"
)

// selfCPU is the CPU time (user and system) this process has used so far (0 where unknown).
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
