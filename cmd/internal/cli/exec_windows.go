//go:build windows

package cli

import (
	"errors"
	"os"
	"os/exec"
)

// execEngine runs reflect-engine at path with args on this process's streams and environment,
// waits, and returns its exit status as this process's (Windows has no exec).
func execEngine(path string, args []string) error {
	c := exec.Command(path, args...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := c.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee):
		return &SilentError{Code: ee.ExitCode()}
	}
	return &NoEngineError{Looked: path, Err: err, Found: true}
}
