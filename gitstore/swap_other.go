//go:build !linux

package gitstore

import (
	"errors"
	"os"
)

// swapWrite is Linux's renameat2 exchange (swap_linux.go); elsewhere WriteVolatileState
// writes as writeAtomic does.
func swapWrite(dst, spare string, data []byte) error {
	return errors.ErrUnsupported
}

// readShared reads the file at path: no swapWrite rewrites it in place here.
func readShared(path string) ([]byte, error) { return os.ReadFile(path) }
