package gitstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/reflect-memory/reflect/gitstore/gitindex"
	"github.com/reflect-memory/reflect/transcript/redact"
)

// Tx is one write in progress: reads see HEAD plus what the Tx has staged.
type Tx struct {
	r      *Repo
	head   plumbing.Hash
	root   plumbing.Hash
	writes map[string][]byte            // nil: delete
	known  map[string]plumbing.Hash     // blobs already in the object store (WriteBlob)
	modes  map[string]filemode.FileMode // executable files (WriteBlob); the rest are regular
	merge  plumbing.Hash                // second parent of the commit (a merge), or zero
	ff     plumbing.Hash                // fast-forward: move the branch to this commit, write none
	author *object.Signature            // the commit's author when not this repository's identity
}

// AuthoredBy makes name <email> the commit's author; this repository's identity stays its
// committer. What the commit writes is theirs (a learning drained from a capture they pushed),
// and every clone that fetches it records it so (package provenance reads the author).
func (tx *Tx) AuthoredBy(name, email string) {
	clean := strings.NewReplacer("<", "", ">", "", "\n", "", "\r", "", "\x00", "") // what would break the commit's header
	tx.author = &object.Signature{Name: clean.Replace(name), Email: clean.Replace(email)}
}

// MergeWith makes the commit a merge: other becomes its second parent. The commit is made
// even when the staged files leave the tree as it was.
func (tx *Tx) MergeWith(other plumbing.Hash) { tx.merge = other }

// FastForward moves the branch to commit, a descendant of Head whose tree the staged files
// must produce exactly; no commit is written. The work tree and git index are updated for
// the staged paths only.
func (tx *Tx) FastForward(commit plumbing.Hash) { tx.ff = commit }

// TreeOf returns the tree of commit under dir, like Repo.TreeOf (for merges inside a Tx).
func (tx *Tx) TreeOf(commit plumbing.Hash, dir string) (plumbing.Hash, error) {
	return tx.r.TreeOf(commit, dir)
}

// Head is the commit the Tx builds on.
func (tx *Tx) Head() plumbing.Hash { return tx.head }

// Read returns path as the Tx sees it.
func (tx *Tx) Read(p string) ([]byte, error) {
	if data, ok := tx.writes[p]; ok {
		if data == nil {
			return nil, fmt.Errorf("%s: %w", p, ErrNotFound)
		}
		return data, nil
	}
	return tx.r.readAt(tx.root, p)
}

// Walk lists HEAD's files under dir (what the Tx has staged is not included).
func (tx *Tx) Walk(dir string) ([]File, error) { return tx.r.walkAt(tx.root, dir) }

// Write stages path with data.
func (tx *Tx) Write(p string, data []byte) {
	if data == nil {
		data = []byte{}
	}
	tx.writes[p] = data
	delete(tx.known, p)
	delete(tx.modes, p)
}

// WriteBlob stages path with the blob id, already in the object store (a fetch brought it),
// whose content is data, as a file of mode (regular or executable: a fast-forward keeps the
// mode the remote's tree has): the work tree gets data and no object is written again.
func (tx *Tx) WriteBlob(p string, id plumbing.Hash, mode filemode.FileMode, data []byte) {
	tx.Write(p, data)
	if tx.known == nil {
		tx.known = map[string]plumbing.Hash{}
		tx.modes = map[string]filemode.FileMode{}
	}
	tx.known[p] = id
	tx.modes[p] = mode
}

// Delete stages the removal of path.
func (tx *Tx) Delete(p string) { tx.writes[p] = nil; delete(tx.known, p); delete(tx.modes, p) }

// Update runs fn under the repository lock and commits what it staged as one commit with the
// message fn returns. fn may run more than once if git moves the branch meanwhile. When fn
// stages nothing, or only what HEAD already holds, nothing is committed and HEAD is returned.
// A disk that refuses a write (full, over quota, read-only) gives a *WriteError.
func (r *Repo) Update(ctx context.Context, fn func(tx *Tx) (string, error)) (_ plumbing.Hash, err error) {
	defer func() { err = AsWriteError(r.root, err) }()
	unlock, err := r.lock(ctx)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	defer unlock()
	// git's own lock files are waited for no longer than the repository lock
	ctx, cancel := context.WithTimeout(ctx, r.cfg.Git.LockTimeout.Std())
	defer cancel()
	if err := r.recover(ctx); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("recover an interrupted write: %w", err)
	}
	for attempt := 0; ; attempt++ {
		head, root, err := r.headTree()
		if err != nil {
			return plumbing.ZeroHash, err
		}
		tx := &Tx{r: r, head: head, root: root, writes: map[string][]byte{}}
		msg, err := fn(tx)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		id, err := r.commitTx(ctx, tx, msg)
		if errors.Is(err, errRefMoved) && attempt < 5 {
			continue
		}
		return id, err
	}
}

// Commit writes files (nil content: delete) as one commit.
func (r *Repo) Commit(ctx context.Context, message string, files map[string][]byte) (plumbing.Hash, error) {
	return r.Update(ctx, func(tx *Tx) (string, error) {
		for p, data := range files {
			if data == nil {
				tx.Delete(p)
			} else {
				tx.Write(p, data)
			}
		}
		return message, nil
	})
}

var errRefMoved = errors.New("branch moved during the write")

func validPath(p string) error {
	if p == "" || strings.HasPrefix(p, "/") || path.Clean(p) != p || strings.HasPrefix(p, "../") ||
		p == ".." || strings.HasPrefix(p, ".git/") || p == ".git" || strings.ContainsRune(p, '\\') {
		return fmt.Errorf("invalid repository path %q", p)
	}
	return nil
}

func (r *Repo) commitTx(ctx context.Context, tx *Tx, msg string) (plumbing.Hash, error) {
	paths := make([]string, 0, len(tx.writes))
	for p := range tx.writes {
		if err := validPath(p); err != nil {
			return plumbing.ZeroHash, err
		}
		paths = append(paths, p)
	}
	sort.Strings(paths)
	if len(paths) == 0 && tx.merge.IsZero() && tx.ff.IsZero() {
		return tx.head, nil
	}
	changes := map[string]blobChange{}
	inHead := map[string]bool{}
	old := map[string]plumbing.Hash{} // blob in HEAD, for the paths that have one
	for _, p := range paths {
		prev, ok, err := r.lookup(tx.root, p)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if ok && prev.isDir() {
			return plumbing.ZeroHash, fmt.Errorf("%s is a directory", p)
		}
		inHead[p] = ok
		if ok {
			old[p] = prev.hash
		}
		if err := r.checkClean(p, prev, ok); err != nil {
			return plumbing.ZeroHash, err
		}
		// a file keeps its executable bit when its content changes, as in git
		c := blobChange{mode: filemode.Regular}
		if m, ok := tx.modes[p]; ok && m == filemode.Executable || !ok && inHead[p] && prev.mode == filemode.Executable {
			c.mode = filemode.Executable
		}
		if id, ok := tx.known[p]; ok {
			c.id = id
		} else if data := tx.writes[p]; data != nil {
			if c.id, err = r.writeObject(plumbing.BlobObject, data); err != nil {
				return plumbing.ZeroHash, err
			}
		}
		changes[p] = c
	}
	newRoot, err := r.applyTree(tx.root, changes)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if newRoot.IsZero() {
		if newRoot, err = r.writeObject(plumbing.TreeObject, nil); err != nil {
			return plumbing.ZeroHash, err
		}
	}
	var commit plumbing.Hash
	switch {
	case !tx.ff.IsZero():
		want, err := r.commitTree(tx.ff)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if want != newRoot {
			return plumbing.ZeroHash, fmt.Errorf("fast-forward to %s: the staged files make tree %s, not %s", tx.ff, newRoot, want)
		}
		commit = tx.ff
	case newRoot == tx.root && tx.merge.IsZero():
		return tx.head, nil
	default:
		if commit, err = r.writeCommit(newRoot, msg, tx.author, tx.head, tx.merge); err != nil {
			return plumbing.ZeroHash, err
		}
	}
	branch, err := r.branch()
	if err != nil {
		return plumbing.ZeroHash, err
	}

	// git's index.lock first: git cannot stage or commit while reflect checks and writes.
	ilock, err := r.takeGitLock(ctx, filepath.Join(r.gitDir, "index.lock"), "index")
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if r.died("index-lock") {
		return plumbing.ZeroHash, errDied
	}
	ix, err := gitindex.Read(r.gitDir)
	if err == nil {
		err = r.checkStaged(ix, paths, inHead, old)
	}
	if err != nil {
		ilock.release()
		return plumbing.ZeroHash, err
	}
	// From here on the work tree, the git index and the ref change; the journal lets the
	// next writer finish or undo this one if the process dies.
	if err := r.writeJournal(paths); err != nil {
		ilock.release()
		return plumbing.ZeroHash, err
	}
	if r.died("journal") {
		return plumbing.ZeroHash, errDied
	}
	updates := map[string]*gitindex.Entry{}
	for _, p := range paths {
		if data := tx.writes[p]; data != nil {
			e, err := r.writeWorkFile(p, data, changes[p].id, changes[p].mode)
			if err != nil {
				ilock.release()
				return plumbing.ZeroHash, r.undo(ctx, paths, err)
			}
			updates[p] = &e
		} else {
			if err := removeWorkFile(r.root, p); err != nil {
				ilock.release()
				return plumbing.ZeroHash, r.undo(ctx, paths, err)
			}
			updates[p] = nil
		}
	}
	if r.died("work-tree") {
		return plumbing.ZeroHash, errDied
	}
	idx, err := ix.Update(updates, func(p string) bool { return inHead[p] }, r.indexOptions())
	if err != nil {
		ilock.release()
		return plumbing.ZeroHash, r.undo(ctx, paths, err)
	}
	if _, err := ilock.f.Write(idx); err != nil {
		ilock.release()
		return plumbing.ZeroHash, r.undo(ctx, paths, err)
	}
	if r.died("index-written") {
		return plumbing.ZeroHash, errDied
	}
	if err := r.casRef(ctx, branch, tx.head, commit); err != nil {
		ilock.release()
		return plumbing.ZeroHash, r.undo(ctx, paths, err)
	}
	if r.died("ref") {
		return plumbing.ZeroHash, errDied
	}
	if err := ilock.commit(nil, filepath.Join(r.gitDir, "index")); err != nil {
		return commit, err // the commit is in; the next write's recovery repairs the index
	}
	if r.died("index") {
		return commit, errDied
	}
	r.removeJournal()
	return commit, nil
}

// errDied stands for the process dying at a failpoint (tests only).
var errDied = errors.New("simulated crash")

// died reports whether a test asked the write to stop dead after phase, leaving everything
// as a killed process would. It is always false outside tests.
func (r *Repo) died(phase string) bool { return r.failpoint != nil && r.failpoint(phase) }

// undo puts the work tree and index back to HEAD after a failed write, and returns cause.
func (r *Repo) undo(ctx context.Context, paths []string, cause error) error {
	if err := r.reconcile(ctx, paths); err != nil {
		return fmt.Errorf("%w (and undoing it failed: %v)", cause, err)
	}
	r.removeJournal()
	return cause
}

// checkClean refuses to overwrite a work-tree file that differs from HEAD.
func (r *Repo) checkClean(p string, old treeEntry, inHead bool) error {
	data, err := os.ReadFile(filepath.Join(r.root, filepath.FromSlash(p)))
	if errors.Is(err, os.ErrNotExist) {
		if inHead {
			return &DirtyError{Path: p}
		}
		return nil
	}
	if err != nil {
		return err
	}
	if !inHead || hashObject(plumbing.BlobObject, data) != old.hash {
		return &DirtyError{Path: p}
	}
	return nil
}

// writeCommit writes the commit object. Its message is redacted here, the one place every
// commit of the memory passes: callers redact what they put in it (a learning's title, a
// drain's report of what it dropped, a failure's reason), and this is the net under a text
// one of them forgot.
func (r *Repo) writeCommit(tree plumbing.Hash, msg string, author *object.Signature, parents ...plumbing.Hash) (plumbing.Hash, error) {
	sig := r.signature(time.Now())
	c := object.Commit{Author: sig, Committer: sig, Message: redact.String(strings.TrimRight(msg, "\n")) + "\n", TreeHash: tree}
	if author != nil {
		c.Author = object.Signature{Name: author.Name, Email: author.Email, When: sig.When}
	}
	for _, p := range parents {
		if !p.IsZero() {
			c.ParentHashes = append(c.ParentHashes, p)
		}
	}
	obj := &plumbing.MemoryObject{}
	if err := c.Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	rd, err := obj.Reader()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	defer rd.Close()
	data := make([]byte, obj.Size())
	if _, err := rd.Read(data); err != nil && obj.Size() > 0 {
		return plumbing.ZeroHash, err
	}
	return r.writeObject(plumbing.CommitObject, data)
}

// casRef moves ref from old to new only if it still points at old, under git's ref lock.
func (r *Repo) casRef(ctx context.Context, ref string, old, new plumbing.Hash) error {
	file := filepath.Join(r.gitDir, filepath.FromSlash(ref))
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	l, err := r.takeGitLock(ctx, file+".lock", "ref")
	if err != nil {
		return err
	}
	cur, err := r.readRef(ref)
	if err != nil {
		l.release()
		return err
	}
	if cur != old {
		l.release()
		return errRefMoved
	}
	return l.commit([]byte(new.String()+"\n"), file)
}

// writeWorkFile writes a work-tree file atomically and returns its index entry.
func (r *Repo) writeWorkFile(p string, data []byte, id plumbing.Hash, mode filemode.FileMode) (gitindex.Entry, error) {
	dst := filepath.Join(r.root, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return gitindex.Entry{}, err
	}
	perm := os.FileMode(0o644)
	if mode == filemode.Executable {
		perm = 0o755
	}
	if err := r.writeAtomic(dst, data, perm); err != nil {
		return gitindex.Entry{}, fmt.Errorf("write %s: %w", p, err)
	}
	fi, err := os.Lstat(dst)
	if err != nil {
		return gitindex.Entry{}, err
	}
	return gitindex.NewEntry(p, id, fi, mode == filemode.Executable), nil
}

// removeWorkFile deletes a work-tree file and the directories it leaves empty.
func removeWorkFile(root, p string) error {
	f := filepath.Join(root, filepath.FromSlash(p))
	if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for d := filepath.Dir(f); d != root && strings.HasPrefix(d, root); d = filepath.Dir(d) {
		if os.Remove(d) != nil {
			break
		}
	}
	return nil
}

// checkStaged refuses to write a path whose git index entry differs from HEAD: a change a
// person staged (git add) but did not commit would otherwise be replaced.
func (r *Repo) checkStaged(ix *gitindex.File, paths []string, inHead map[string]bool, old map[string]plumbing.Hash) error {
	found := map[string]bool{}
	err := ix.Lookup(paths, func(p string) bool { return inHead[p] }, func(name string, id plumbing.Hash, stage int) error {
		found[name] = true
		if stage != 0 || !inHead[name] || id != old[name] {
			return &DirtyError{Path: name}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, p := range paths {
		if inHead[p] && !found[p] {
			return &DirtyError{Path: p} // staged for deletion
		}
	}
	return nil
}
