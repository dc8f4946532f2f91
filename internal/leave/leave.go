// Package leave is how a test or the bench asks reflect's processes that stay (the history
// importers that watch sessions, the resident engines that answer recall hooks) to leave: a
// file in their directory, which they look for between their jobs. A signal would kill one
// still in Go's initialisation, before its first job.
package leave

import (
	"os"
	"path/filepath"
)

// name is the file whose presence asks the processes of a directory to leave.
const name = "leave"

// Ask asks the processes that stay in dir to leave, at their next look; the returned function
// lets them stay again.
func Ask(dir string) (stay func(), err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		return nil, err
	}
	return func() { os.Remove(path) }, nil
}

// Asked says whether Ask asks the processes of dir to leave.
func Asked(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, name))
	return err == nil
}
