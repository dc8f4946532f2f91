package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/reflect-memory/reflect/gitstore"
	indexlayout "github.com/reflect-memory/reflect/index/layout"
	"github.com/reflect-memory/reflect/learnings"
)

// Index is an open index, ready to search: the bleve index, or — when that could not be
// used — a scan of the learnings in git that answers the same queries more slowly.
type Index struct {
	idx  bleve.Index
	scan *scanner
	note string
	// Fresh is true when the index reflects HEAD's learnings.
	Fresh bool
	// CaughtUp is how many changed learnings Open indexed before it returned.
	CaughtUp int
	// Bad are learnings that did not parse while catching up (they are not indexed).
	Bad []error
	// NeedsBuild: there was no usable index; the caller may start a rebuild.
	NeedsBuild bool
	// shared is the memo of the index's state (memoOf), nil for a scan; own stands in
	// for it then (memo)
	shared *memo
	own    memo
	// fixed: opened read-only, so what it reads never changes (bleve's merger and persister
	// run only in an index open for writing), down to its documents' internal ids
	fixed bool
}

// memo is what the index's searches have read and counted: the memo of its state, shared
// with every index of that state this process opens, else the index's own.
func (ix *Index) memo() *memo {
	if ix.shared != nil {
		return ix.shared
	}
	return &ix.own
}

// Close releases the index.
func (ix *Index) Close() error {
	if ix.idx == nil {
		return nil
	}
	return ix.idx.Close()
}

// readOnly is the Index of gen opened read-only at the learnings tree it reflects: fixed, and
// sharing that state's memo.
func readOnly(idx bleve.Index, gen string, tree plumbing.Hash, fresh bool, note string) *Index {
	return &Index{idx: idx, Fresh: fresh, shared: memoOf(gen, tree), fixed: true, note: note}
}

// Open opens the index of r for searching, first bringing it up to HEAD. It fails only
// when git cannot be read; any trouble with the index itself (missing, corrupt, locked
// by a writer for longer than opts.LockTimeout) makes it scan git instead and say so.
func Open(ctx context.Context, r *gitstore.Repo, opts Options) (*Index, error) {
	head, err := r.Head()
	if err != nil {
		return nil, err
	}
	// HEAD's learnings tree, read only when HEAD is not the commit the index records
	// (reading a commit out of a pack costs more than the rest of a recall).
	t := target{commit: head}
	treeRead := false
	headTree := func() error {
		if !treeRead {
			treeRead = true
			t.tree, err = r.TreeOf(head, learnings.Dir)
		}
		return err
	}
	l := newLayout(r)
	timeout := lockTimeout(opts)
	var stale bleve.Index // a readable index that is behind, kept in case catching up fails
	if gen := l.current(); gen != "" {
		idx, err := openGen(gen, true, timeout)
		switch {
		case err == nil:
			commit, tree := reflects(idx)
			if commit == head {
				return readOnly(idx, gen, tree, true, ""), nil
			}
			if err := headTree(); err != nil {
				idx.Close()
				return nil, err
			}
			if tree == t.tree {
				return readOnly(idx, gen, tree, true, ""), nil
			}
			stale = idx
		case errors.Is(err, ErrLocked):
			// a writer holds it: it is catching up or rebuilding; try to take our turn
		default:
			l.discard(gen) // corrupt: the next build replaces it
		}
	}
	if stale != nil {
		// bleve's file lock: a reader cannot become the writer while it holds it.
		stale.Close()
	}
	if err := headTree(); err != nil {
		return nil, err
	}
	ix, err := writeOpen(ctx, r, l, t, opts)
	if err == nil {
		return ix, nil
	}
	if stale != nil {
		if gen := l.current(); gen != "" {
			if idx, rerr := openGen(gen, true, timeout); rerr == nil {
				_, tree := reflects(idx)
				if tree == t.tree { // another process caught it up
					return readOnly(idx, gen, tree, true, ""), nil
				}
				return readOnly(idx, gen, tree, false, fmt.Sprintf("the index is behind HEAD (%v); results may miss recent learnings", err)), nil
			}
		}
	}
	if !opts.NoBuild && errors.Is(err, ErrMissing) {
		// build it, unless another process is already at it: then wait for that one.
		if unlock, berr := l.takeLock(ctx, l.buildLock, timeout); berr != nil {
			err = berr
		} else {
			if l.current() == "" {
				_, berr = rebuild(ctx, r, l, opts)
			}
			unlock()
			if berr != nil {
				err = berr
			} else if ix, oerr := writeOpen(ctx, r, l, t, opts); oerr == nil {
				return ix, nil
			} else {
				err = oerr
			}
		}
	}
	sc, serr := newScanner(ctx, r, t)
	if serr != nil {
		return nil, serr
	}
	return &Index{scan: sc, note: "searched the files: " + err.Error(), NeedsBuild: errors.Is(err, ErrMissing)}, nil
}

// writeOpen takes the writer lock and brings the live generation to t, returning it
// open for writing (which is also fine for reading).
func writeOpen(ctx context.Context, r *gitstore.Repo, l layout, t target, opts Options) (*Index, error) {
	unlock, err := l.takeLock(ctx, l.lock, lockTimeout(opts))
	if err != nil {
		return nil, err
	}
	defer unlock()
	gen := l.current()
	if gen == "" {
		return nil, ErrMissing
	}
	idx, err := openGen(gen, false, lockTimeout(opts))
	if err != nil {
		if !errors.Is(err, ErrLocked) && !errors.Is(err, ErrMissing) {
			l.discard(gen)
			err = fmt.Errorf("%w (the index was unreadable: %v)", ErrMissing, err)
		}
		return nil, err
	}
	n, bad, err := catchUp(ctx, r, idx, t, opts.CatchUpLimit)
	if err != nil {
		idx.Close()
		return nil, err
	}
	return &Index{idx: idx, Fresh: true, CaughtUp: n, Bad: bad, shared: memoOf(gen, t.tree)}, nil
}

// discard takes a corrupt generation out of service.
func (l layout) discard(gen string) {
	if l.current() == gen {
		os.Remove(l.dir + "/CURRENT")
	}
	os.RemoveAll(gen)
}

// Exists reports whether r has an index to keep up to date (cheap: one small file read).
func Exists(r *gitstore.Repo) bool { return indexlayout.Exists(r) }

// CatchUp brings an existing index up to HEAD and closes it, giving up at once when another
// process is writing it (that one, or the next reader, catches up). Without an index it
// does nothing: the next search builds one.
func CatchUp(ctx context.Context, r *gitstore.Repo) error {
	if !Exists(r) {
		return nil
	}
	ix, err := Open(ctx, r, Options{LockTimeout: 50 * time.Millisecond, NoBuild: true})
	if err != nil {
		return err
	}
	return ix.Close()
}

// Status is what Inspect finds, for `reflect status`.
type Status struct {
	Exists    bool   `json:"exists"`
	Fresh     bool   `json:"fresh"`
	Behind    int    `json:"behind"` // changed learnings not indexed yet
	Learnings uint64 `json:"learnings"`
	Commit    string `json:"commit,omitempty"`
	Problem   string `json:"problem,omitempty"`
}

// Inspect looks at the index without changing it: whether there is one, how many learnings
// it holds, and how far behind HEAD it is.
func Inspect(r *gitstore.Repo) (Status, error) {
	l := newLayout(r)
	gen := l.current()
	if gen == "" {
		return Status{}, nil
	}
	st := Status{Exists: true}
	idx, err := openGen(gen, true, time.Second)
	if err != nil {
		st.Problem = err.Error()
		return st, nil
	}
	defer idx.Close()
	st.Learnings, _ = idx.DocCount()
	commit, tree := reflects(idx)
	st.Commit = commit.String()
	t, err := headTarget(r)
	if err != nil {
		return st, err
	}
	changes, err := r.DiffTrees(tree, t.tree, learnings.Dir)
	if err != nil {
		return st, err
	}
	st.Behind = len(changes)
	st.Fresh = st.Behind == 0
	return st, nil
}
