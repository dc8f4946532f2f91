//go:build !windows

package cli

import (
	"os"
	"syscall"
)

// execEngine replaces this process with reflect-engine at path, given args: the same
// environment and streams, and the engine's exit status is the process's. It returns only
// when the exec failed.
func execEngine(path string, args []string) error {
	err := syscall.Exec(path, append([]string{path}, args...), os.Environ())
	return &NoEngineError{Looked: path, Err: err, Found: true}
}
