// Package lockfile takes the advisory file locks (under .git/reflect/locks) that keep
// reflect's processes apart: one drain, one sync, one index writer, one history import.
// The lock belongs to the open file, so a process that dies releases it.
package lockfile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
)

// ErrHeld is returned when another process kept the lock past the wait.
var ErrHeld = errors.New("lock held by another process")

// poll is how often a waiting Take tries again.
const poll = 5 * time.Millisecond

// Take locks path, creating its directory, waiting at most timeout (zero or less: one try),
// and returns the function that unlocks it.
func Take(ctx context.Context, path string, timeout time.Duration) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	fl := flock.New(path)
	var ok bool
	var err error
	if timeout <= 0 {
		ok, err = fl.TryLock()
	} else {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		ok, err = fl.TryLockContext(ctx, poll)
	}
	if err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrHeld, path)
	}
	return func() { fl.Unlock() }, nil
}
