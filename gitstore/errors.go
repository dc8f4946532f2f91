package gitstore

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/reflect-memory/reflect/internal/lockfile"
)

// ErrNotInitialised means the directory holds no knowledge repository.
var ErrNotInitialised = errors.New("no reflect repository")

// ErrLocked means another process kept the repository busy past the lock timeout.
var ErrLocked = lockfile.Busy("repository busy: another reflect or git process is writing")

// ErrNotFound means a path does not exist in HEAD.
var ErrNotFound = errors.New("not found")

// DirtyError means a path reflect is about to write has uncommitted changes in the work tree.
type DirtyError struct{ Path string }

func (e *DirtyError) Error() string {
	return fmt.Sprintf("%s has uncommitted changes in the work tree; commit or discard them first", e.Path)
}

// NotInitialisedError says where a repository was expected.
type NotInitialisedError struct{ Dir string }

func (e *NotInitialisedError) Error() string {
	return fmt.Sprintf("no reflect repository at %s (run `reflect init`)", e.Dir)
}

func (e *NotInitialisedError) Unwrap() error { return ErrNotInitialised }

// WriteError means the disk holding the repository refused a write: it is full, over quota
// or read-only. What HEAD holds is intact; a write cut short is completed or undone by the
// next one.
type WriteError struct {
	Root string
	Err  error
}

func (e *WriteError) Error() string {
	return fmt.Sprintf("cannot write the repository at %s: %v; free space on its disk (or make it writable) and run the command again", e.Root, e.Err)
}

func (e *WriteError) Unwrap() error { return e.Err }

// AsWriteError returns err as a *WriteError when it is the disk holding the repository at
// root refusing a write (no space, no quota, read-only file system), else err unchanged.
// For errors of writes this package does not make itself, such as a fetch's pack files.
func AsWriteError(root string, err error) error {
	var we *WriteError
	if err == nil || errors.As(err, &we) {
		return err
	}
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) || errors.Is(err, syscall.EROFS) {
		return &WriteError{Root: root, Err: err}
	}
	return err
}
