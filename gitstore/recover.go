package gitstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// The journal names the paths a write is changing. It exists from before the first visible
// change (work tree, index, ref) until the index is in place, so its presence after a crash
// says exactly which paths may disagree with HEAD.

type journal struct {
	Paths []string `json:"paths"`
}

func (r *Repo) journalPath() string { return filepath.Join(r.stateDir, "journal.json") }

// writeJournal rewrites the one journal file in place: a small write(2) to a regular file
// is never torn by a kill, and rewriting avoids creating a file per write (see reuseSpare).
// An empty journal means no write is in progress.
func (r *Repo) writeJournal(paths []string) error {
	data, _ := json.Marshal(journal{Paths: paths})
	if err := os.WriteFile(r.journalPath(), data, 0o644); err != nil {
		// A full disk takes part of a journal over one page (TestFullDiskDuringJournal);
		// nothing has changed yet, and a torn journal would stop every later write.
		r.removeJournal()
		return fmt.Errorf("write journal: %w", err)
	}
	return nil
}

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
	data, err := os.ReadFile(r.journalPath())
	if errors.Is(err, os.ErrNotExist) || (err == nil && len(data) == 0) {
		return nil
	}
	if err != nil {
		return err
	}
	var j journal
	if err := json.Unmarshal(data, &j); err != nil {
		return fmt.Errorf("read %s: %w (remove it if no reflect process is running)", r.journalPath(), err)
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
	updates := map[string]*entry{}
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
		ie, err := r.writeWorkFile(p, data, e.hash)
		if err != nil {
			l.release()
			return err
		}
		updates[p] = &ie
	}
	ix, err := r.readIndex()
	if err != nil {
		l.release()
		return err
	}
	idx, err := r.buildIndex(ix, updates, func(string) bool { return true })
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
