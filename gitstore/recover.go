package gitstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/reflect-memory/reflect/gitstore/gitindex"
	"github.com/reflect-memory/reflect/internal/atomicfile"
)

// The journal names the paths a write is changing. It exists from before the first visible
// change (work tree, index, ref) until the index is in place, so its presence after a crash
// says exactly which paths may disagree with HEAD.

type journal struct {
	Paths []string `json:"paths"`
}

func (r *Repo) journalPath() string { return filepath.Join(r.stateDir, "journal.json") }

// writeJournal replaces the journal durably (atomicfile): it is on disk before the first
// visible change, so even after a power loss the next writer knows which paths to reconcile.
// An empty journal means no write is in progress.
func (r *Repo) writeJournal(paths []string) error {
	data, _ := json.Marshal(journal{Paths: paths})
	if err := atomicfile.Write(r.journalPath(), data, 0o644); err != nil {
		// a full disk refuses the temporary file (TestFullDiskDuringJournal): the journal
		// stays empty, as nothing has changed yet
		return fmt.Errorf("write journal: %w", err)
	}
	return nil
}

// removeJournal empties the journal. It needs no sync: a journal that outlives its write
// after a crash only makes the next writer reconcile paths that already agree with HEAD.
func (r *Repo) removeJournal() { os.Truncate(r.journalPath(), 0) }

// recover finishes or undoes a write that was interrupted, whatever the moment: the ref
// decides. If it moved, the commit is in and the work tree and index catch up to it; if not,
// they go back to HEAD. It runs under the repository lock, before every write.
func (r *Repo) recover(ctx context.Context) error {
	// a lock file reflect left when it died, proven by its inode (it may die holding one
	// before it writes the journal)
	tmp := filepath.Join(r.stateDir, "tmp")
	branch, err := r.branch()
	if err != nil {
		return err
	}
	clearStaleGitLock(filepath.Join(r.gitDir, "index.lock"), filepath.Join(tmp, "index"))
	clearStaleGitLock(filepath.Join(r.gitDir, filepath.FromSlash(branch))+".lock", filepath.Join(tmp, "ref"))
	j, err := r.readJournal()
	if j == nil || err != nil {
		return err
	}
	if err := r.reconcile(ctx, j.Paths); err != nil {
		return err
	}
	r.removeJournal()
	leftovers, _ := filepath.Glob(filepath.Join(tmp, "*"))
	objTmp, _ := filepath.Glob(filepath.Join(r.gitDir, "objects", "??", "tmp_obj_*"))
	for _, f := range append(leftovers, objTmp...) {
		os.Remove(f)
	}
	return nil
}

// readJournal returns the journal, or nil when it is empty (no write in progress).
func (r *Repo) readJournal() (*journal, error) {
	data, err := os.ReadFile(r.journalPath())
	if errors.Is(err, os.ErrNotExist) || (err == nil && len(data) == 0) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var j journal
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, fmt.Errorf("read %s: %w (remove it if no reflect process is running)", r.journalPath(), err)
	}
	return &j, nil
}

// InterruptedWrite returns the paths of a write that stopped after it began to change the
// work tree, the git index or the branch (its process was killed, or its disk filled and
// the undo failed as well) and that no write has completed or undone since. It returns nil
// when there is none, and when a writer holds the repository lock: that write may still be
// under way. The next write, or Recover, completes or undoes it; the branch decides. It
// changes nothing.
func (r *Repo) InterruptedWrite() ([]string, error) {
	if j, err := r.readJournal(); j == nil || err != nil {
		return nil, err
	}
	fl := r.repoLock()
	ok, err := fl.TryLock()
	if err != nil || !ok {
		return nil, err
	}
	defer fl.Unlock()
	j, err := r.readJournal() // what is left now that no writer can be running
	if j == nil || err != nil {
		return nil, err
	}
	return j.Paths, nil
}

// Recover completes or undoes an interrupted write (see InterruptedWrite) under the
// repository lock, as the next write would, and returns the paths it reconciled.
func (r *Repo) Recover(ctx context.Context) (_ []string, err error) {
	defer func() { err = AsWriteError(r.root, err) }()
	unlock, err := r.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	ctx, cancel := context.WithTimeout(ctx, r.cfg.Git.LockTimeout.Std())
	defer cancel()
	j, err := r.readJournal()
	if err != nil {
		return nil, err
	}
	if err := r.recover(ctx); err != nil {
		return nil, fmt.Errorf("recover an interrupted write: %w", err)
	}
	if j == nil {
		return nil, nil
	}
	return j.Paths, nil
}

// reconcile makes the work tree and the index agree with HEAD for paths.
func (r *Repo) reconcile(ctx context.Context, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	_, root, err := r.headTree()
	if err != nil {
		return err
	}
	l, err := r.takeGitLock(ctx, filepath.Join(r.gitDir, "index.lock"), "index")
	if err != nil {
		return err
	}
	updates := map[string]*gitindex.Entry{}
	for _, p := range paths {
		e, ok, err := r.lookup(root, p)
		if err != nil {
			l.release()
			return err
		}
		if !ok || e.isDir() {
			if err := removeWorkFile(r.root, p); err != nil {
				l.release()
				return err
			}
			updates[p] = nil
			continue
		}
		data, err := r.readBlob(e.hash)
		if err != nil {
			l.release()
			return err
		}
		ie, err := r.writeWorkFile(p, data, e.hash, e.mode)
		if err != nil {
			l.release()
			return err
		}
		updates[p] = &ie
	}
	ix, err := gitindex.Read(r.gitDir)
	if err != nil {
		l.release()
		return err
	}
	idx, err := ix.Update(updates, func(string) bool { return true }, r.indexOptions())
	if err != nil {
		l.release()
		return err
	}
	if _, err := l.f.Write(idx); err != nil {
		l.release()
		return err
	}
	return l.commit(nil, filepath.Join(r.gitDir, "index"))
}
