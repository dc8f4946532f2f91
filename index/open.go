package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/reflect-memory/reflect/gitstore"
	indexlayout "github.com/reflect-memory/reflect/index/layout"
	"github.com/reflect-memory/reflect/internal/atomicfile"
	"github.com/reflect-memory/reflect/internal/lockfile"
	"github.com/reflect-memory/reflect/learnings"
)

// Internal keys bleve stores with the documents: what the index reflects.
var (
	keyCommit  = []byte("reflect.commit")
	keyTree    = []byte("reflect.tree")
	keyMapping = []byte("reflect.mapping")
)

// Options say how long Open may wait and how much it may do.
type Options struct {
	// LockTimeout bounds each wait for a lock (bleve's, and the index writer lock).
	LockTimeout time.Duration
	// CatchUpLimit is the most changed learnings Open indexes inline before it
	// searches; beyond it the index is searched as it is and Fresh is false. 0: no limit.
	CatchUpLimit int
	// NoBuild: when there is no usable index, fall back to scanning instead of
	// building one inline (hooks: a build costs seconds at 10,000 learnings).
	NoBuild bool
	// Progress, when set, is told how a full build goes.
	Progress func(done, total int)
}

// Errors that make Open fall back to a scan.
var (
	ErrMissing = errors.New("index: no index yet")
	ErrLocked  = lockfile.Busy("index: locked by another process")
)

// layout is where the generations of one repository's index live.
type layout struct {
	repo      *gitstore.Repo
	dir       string // .git/reflect/index
	lock      string // .git/reflect/locks/index: changes to the live generation
	buildLock string // .git/reflect/locks/index-build: one full build at a time
}

func newLayout(r *gitstore.Repo) layout {
	locks := filepath.Join(r.StateDir(), "locks")
	return layout{repo: r, dir: indexlayout.Dir(r),
		lock: filepath.Join(locks, "index"), buildLock: filepath.Join(locks, "index-build")}
}

func (l layout) current() string { return indexlayout.Current(l.repo) }

// swap makes gen the live generation and removes the others. CURRENT is written durably
// (atomicfile), and the sync of the index directory that takes also makes gen's own rename
// into it durable: after a crash CURRENT never names a generation whose rename was lost.
func (l layout) swap(gen string) error {
	if err := atomicfile.Write(filepath.Join(l.dir, "CURRENT"), []byte(filepath.Base(gen)+"\n"), 0o644); err != nil {
		return err
	}
	l.prune(gen)
	return nil
}

// prune removes generations other than keep, and builds abandoned an hour ago. A reader
// that still has an old generation open keeps reading it (POSIX keeps unlinked files).
func (l layout) prune(keep string) {
	entries, _ := os.ReadDir(l.dir)
	for _, e := range entries {
		p := filepath.Join(l.dir, e.Name())
		switch {
		case p == keep || !e.IsDir():
		case strings.HasPrefix(e.Name(), "gen-"):
			os.RemoveAll(p)
		case strings.HasPrefix(e.Name(), "build-"):
			if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > time.Hour {
				os.RemoveAll(p)
			}
		}
	}
}

// takeLock takes one of the index's locks, waiting at most timeout.
func (l layout) takeLock(ctx context.Context, path string, timeout time.Duration) (func(), error) {
	unlock, err := lockfile.Take(ctx, path, timeout)
	if errors.Is(err, lockfile.ErrHeld) {
		return nil, fmt.Errorf("%w: %s", ErrLocked, path)
	}
	return unlock, err
}

func openBleve(dir string, readOnly bool, timeout time.Duration) (bleve.Index, error) {
	if _, err := os.Stat(filepath.Join(dir, "index_meta.json")); err != nil {
		return nil, ErrMissing
	}
	if timeout <= 0 {
		timeout = time.Second
	}
	idx, err := bleve.OpenUsing(dir, map[string]any{"read_only": readOnly, "bolt_timeout": timeout.String()})
	if err != nil {
		if strings.Contains(err.Error(), "timeout") {
			return nil, fmt.Errorf("%w: %s", ErrLocked, dir)
		}
		return nil, fmt.Errorf("index %s: %w", dir, err)
	}
	return idx, nil
}

// mappingVersion names the mapping a generation was built with; a generation of another one
// is taken out of service and rebuilt, as a corrupt one is. 2: ids are indexed (recall asks
// whether another file claims a candidate's id). 3: triggers are indexed. 4: the code-aware
// analyzer (identifiers whole and in parts). 5: a phrasal verb is held as its compound
// (timed out: timeout), an irregular verb form as its verb (broke: break), a British
// spelling as the American one (organisation: organization). 6: a learning's anchors and
// source commit are stored (recall's freshness check read them from git). 7: production,
// important, general, generic and authorization are held unstemmed (the stemmer folded them
// into product, import, gener and author); an acronym's plural (DAGs, JWTs) is a word, not
// camelCase. 8: a derived noun the stemmer cut apart from its verb is held as the verb
// (expiry: expire, verification: verify, failure: fail).
const mappingVersion = "8"

// errOutdated is a generation built with another mapping.
var errOutdated = errors.New("index: built by an older reflect")

// openGen opens a generation the index serves from, refusing one of another mapping.
func openGen(dir string, readOnly bool, timeout time.Duration) (bleve.Index, error) {
	idx, err := openBleve(dir, readOnly, timeout)
	if err != nil {
		return nil, err
	}
	if v, _ := idx.GetInternal(keyMapping); string(v) != mappingVersion {
		idx.Close()
		return nil, fmt.Errorf("%w (mapping %q, this reflect's is %s)", errOutdated, v, mappingVersion)
	}
	return idx, nil
}

// reflects reads the commit and learnings tree an index was last brought to.
func reflects(idx bleve.Index) (commit, tree plumbing.Hash) {
	c, _ := idx.GetInternal(keyCommit)
	t, _ := idx.GetInternal(keyTree)
	return plumbing.NewHash(string(c)), plumbing.NewHash(string(t))
}

// target is the state of git an index should reflect.
type target struct {
	commit, tree plumbing.Hash
}

func headTarget(r *gitstore.Repo) (target, error) {
	head, err := r.Head()
	if err != nil {
		return target{}, err
	}
	tree, err := r.TreeOf(head, learnings.Dir)
	return target{head, tree}, err
}

// catchUp brings a writable index from the tree it reflects to t, parsing only the
// learnings that differ. A file that no longer parses leaves the index (and is reported).
func catchUp(ctx context.Context, r *gitstore.Repo, idx bleve.Index, t target, limit int) (changed int, bad []error, err error) {
	_, from := reflects(idx)
	if from == t.tree {
		return 0, nil, nil
	}
	changes, err := r.DiffTrees(from, t.tree, learnings.Dir)
	if err != nil {
		return 0, nil, err
	}
	if limit > 0 && len(changes) > limit {
		return len(changes), nil, errTooBehind
	}
	b := idx.NewBatch()
	for i, c := range changes {
		if i%256 == 0 && ctx.Err() != nil {
			return 0, nil, ctx.Err()
		}
		if c.To.IsZero() || !strings.HasSuffix(c.Path, ".md") {
			b.Delete(c.Path)
			continue
		}
		d, err := readDoc(r, c.Path, c.To)
		if err != nil {
			bad = append(bad, err)
			b.Delete(c.Path)
			continue
		}
		if err := b.Index(c.Path, d.fields()); err != nil {
			return 0, nil, err
		}
	}
	b.SetInternal(keyCommit, []byte(t.commit.String()))
	b.SetInternal(keyTree, []byte(t.tree.String()))
	return len(changes), bad, idx.Batch(b)
}

var errTooBehind = errors.New("index: too far behind to catch up inline")

func readDoc(r *gitstore.Repo, path string, blob plumbing.Hash) (Doc, error) {
	l, _, err := learnings.Read(r, path, blob)
	if err != nil {
		return Doc{}, err
	}
	return DocOf(path, l), nil
}

const defaultLockTimeout = 2 * time.Second

var zeroHash plumbing.Hash
