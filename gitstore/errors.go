package gitstore

import (
	"errors"
	"fmt"
)

// ErrNotInitialised means the directory holds no knowledge repository.
var ErrNotInitialised = errors.New("no reflect repository")

// ErrLocked means another process kept the repository busy past the lock timeout.
var ErrLocked = errors.New("repository busy: another reflect or git process is writing")

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
