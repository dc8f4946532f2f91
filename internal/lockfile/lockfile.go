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

// ErrBusy is the one "busy": another process kept something reflect needs — the repository,
// the drain, a sync, the index, the session history — past the wait. Every package's own
// busy error is one (Is(ErrBusy)), with its own words, so that one mapping turns them all
// into exit 5.
var ErrBusy = errors.New("busy")

// Busy returns a sentinel that says msg and is ErrBusy.
func Busy(msg string) error { return busyError{msg} }

type busyError struct{ msg string }

func (e busyError) Error() string        { return e.msg }
func (e busyError) Is(target error) bool { return target == ErrBusy }

// ErrHeld is returned when another process kept the lock past the wait.
var ErrHeld = Busy("lock held by another process")

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
