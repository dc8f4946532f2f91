package gitstore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
)

// lock takes the repository write lock, waiting at most the configured lock timeout (or
// until ctx ends). The kernel drops an flock when its process dies, so a killed writer never
// leaves the repository locked.
func (r *Repo) lock(ctx context.Context) (func(), error) {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.Git.LockTimeout.Std())
	defer cancel()
	fl := r.repoLock()
	for {
		ok, err := fl.TryLock()
		if err != nil {
			return nil, fmt.Errorf("lock repository: %w", err)
		}
		if ok {
			return func() { fl.Unlock() }, nil
		}
		select {
		case <-ctx.Done():
			return nil, ErrLocked
		case <-time.After(time.Duration(500+rand.IntN(1500)) * time.Microsecond):
		}
	}
}

// repoLock is the repository write lock's file.
func (r *Repo) repoLock() *flock.Flock { return flock.New(filepath.Join(r.stateDir, "locks", "repo")) }

// gitLock is one of git's own lock files (index.lock, refs/heads/main.lock). It is created
// as a hard link to a file under .git/reflect/tmp: link(2) fails if the lock exists, as
// O_EXCL does for git, and the shared inode later proves which stale lock was reflect's.
type gitLock struct {
	path string // e.g. .git/index.lock
	tmp  string // .git/reflect/tmp/<name>, same inode
	f    *os.File
}

func (r *Repo) takeGitLock(ctx context.Context, path, tmpName string) (*gitLock, error) {
	tmp := filepath.Join(r.stateDir, "tmp", tmpName)
	for {
		os.Remove(tmp)
		r.takePooled(tmp)
		f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		err = os.Link(tmp, path)
		if err == nil {
			return &gitLock{path: path, tmp: tmp, f: f}, nil
		}
		f.Close()
		os.Remove(tmp)
		if !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w (%s exists)", ErrLocked, path)
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// commit writes data into the lock and renames it over target, as git does.
func (l *gitLock) commit(data []byte, target string) error {
	_, err := l.f.Write(data)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(l.path, target)
	}
	if err != nil {
		l.release()
		return fmt.Errorf("write %s: %w", target, err)
	}
	os.Remove(l.tmp)
	return nil
}

// release drops the lock without changing the target.
func (l *gitLock) release() {
	l.f.Close()
	os.Remove(l.path)
	os.Remove(l.tmp)
}

// clearStaleGitLock removes a lock left by a killed reflect: only if it is still the same
// file as reflect's temporary link, so a lock git holds is never touched.
func clearStaleGitLock(path, tmp string) {
	ti, err := os.Stat(tmp)
	if err != nil {
		return
	}
	if li, err := os.Stat(path); err == nil && os.SameFile(li, ti) {
		os.Remove(path)
	}
	os.Remove(tmp)
}
