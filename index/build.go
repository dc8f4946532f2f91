package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/oklog/ulid/v2"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/learnings"
)

// BuildStats says what a rebuild did.
type BuildStats struct {
	Learnings int     `json:"learnings"`
	Bad       []error `json:"-"`
	Commit    string  `json:"commit"`
}

// Rebuild builds a fresh generation of the index from HEAD into a directory of its own,
// then swaps it in: searches keep using the old generation until the swap, and a rebuild
// that dies leaves the old one in place. Learnings committed while it builds are caught
// up before the swap.
func Rebuild(ctx context.Context, r *gitstore.Repo, opts Options) (BuildStats, error) {
	l := newLayout(r)
	unlock, err := l.takeLock(ctx, l.buildLock, lockTimeout(opts))
	if err != nil {
		return BuildStats{}, err
	}
	defer unlock()
	return rebuild(ctx, r, l, opts)
}

// rebuild is Rebuild under the build lock.
func rebuild(ctx context.Context, r *gitstore.Repo, l layout, opts Options) (BuildStats, error) {
	if err := os.MkdirAll(l.dir, 0o755); err != nil {
		return BuildStats{}, err
	}
	t, err := headTarget(r)
	if err != nil {
		return BuildStats{}, err
	}
	build := filepath.Join(l.dir, "build-"+ulid.Make().String())
	st, err := buildAt(ctx, r, build, t, opts.Progress)
	if err != nil {
		os.RemoveAll(build)
		return st, err
	}
	gen := filepath.Join(l.dir, "gen-"+strings.TrimPrefix(filepath.Base(build), "build-"))
	if err := os.Rename(build, gen); err != nil {
		os.RemoveAll(build)
		return st, err
	}
	unlock, err := l.takeLock(ctx, l.lock, lockTimeout(opts))
	if err != nil {
		os.RemoveAll(gen)
		return st, err
	}
	defer unlock()
	idx, err := openGen(gen, false, lockTimeout(opts))
	if err != nil {
		os.RemoveAll(gen)
		return st, err
	}
	if now, err := headTarget(r); err == nil && now.tree != t.tree {
		_, bad, err := catchUp(ctx, r, idx, now, 0)
		st.Bad = append(st.Bad, bad...)
		if err != nil {
			idx.Close()
			os.RemoveAll(gen)
			return st, err
		}
		st.Commit = now.commit.String()
	}
	if err := idx.Close(); err != nil {
		os.RemoveAll(gen)
		return st, err
	}
	return st, l.swap(gen)
}

// buildAt writes a complete index of tree t into dir with bleve's offline builder (one
// merged segment, the fastest to search), learnings parsed on every core.
func buildAt(ctx context.Context, r *gitstore.Repo, dir string, t target, progress func(int, int)) (BuildStats, error) {
	st := BuildStats{Commit: t.commit.String()}
	files, err := r.DiffTrees(zeroHash, t.tree, learnings.Dir)
	if err != nil {
		return st, err
	}
	if !slices.ContainsFunc(files, func(c gitstore.Change) bool { return strings.HasSuffix(c.Path, ".md") }) {
		// bleve's offline builder cannot make an index of nothing: make an empty one
		idx, err := bleve.NewUsing(dir, newMapping(), "scorch", "scorch", nil)
		if err != nil {
			return st, err
		}
		return st, record(idx, t)
	}
	b, err := bleve.NewBuilder(dir, newMapping(), map[string]any{"batchSize": 5000})
	if err != nil {
		return st, err
	}
	type parsed struct {
		doc Doc
		err error
	}
	type job struct {
		path string
		raw  []byte
		err  error
	}
	jobs := make(chan job, 64)
	out := make(chan parsed, 64)
	var wg sync.WaitGroup
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if j.err != nil {
					out <- parsed{err: j.err}
					continue
				}
				l, err := learnings.Parse(j.path, j.raw)
				if err != nil {
					out <- parsed{err: err}
					continue
				}
				out <- parsed{doc: DocOf(j.path, l)}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for _, f := range files {
			if !strings.HasSuffix(f.Path, ".md") {
				continue
			}
			// git objects are read here, one at a time (a Repo is not safe for
			// concurrent use); parsing, the costly part, runs on every core.
			var raw []byte
			n, err := r.BlobSize(f.To)
			if err == nil && n > learnings.MaxFileBytes {
				err = &learnings.FieldError{Path: f.Path, Msg: fmt.Sprintf("the file is %d bytes; a learning may be at most %d", n, learnings.MaxFileBytes)}
			} else if err == nil {
				raw, err = r.ReadBlob(f.To)
			}
			select {
			case jobs <- job{f.Path, raw, err}:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(out) }()
	done := 0
	var indexErr error
	for p := range out {
		done++
		if progress != nil && (done%250 == 0 || done == len(files)) {
			progress(done, len(files))
		}
		if indexErr != nil {
			continue
		}
		if p.err != nil {
			st.Bad = append(st.Bad, p.err)
			continue
		}
		if err := b.Index(p.doc.Path, p.doc.fields()); err != nil {
			indexErr = fmt.Errorf("index %s: %w", p.doc.Path, err)
			continue
		}
		st.Learnings++
	}
	if err := b.Close(); err != nil && indexErr == nil {
		indexErr = err
	}
	if indexErr == nil {
		indexErr = ctx.Err()
	}
	if indexErr != nil {
		return st, indexErr
	}
	// the builder cannot store internal keys: record what this generation reflects.
	idx, err := openBleve(dir, false, 0)
	if err != nil {
		return st, err
	}
	return st, record(idx, t)
}

// record stores in idx the commit and tree it reflects, and closes it.
func record(idx bleve.Index, t target) error {
	batch := idx.NewBatch()
	batch.SetInternal(keyCommit, []byte(t.commit.String()))
	batch.SetInternal(keyTree, []byte(t.tree.String()))
	batch.SetInternal(keyMapping, []byte(mappingVersion))
	if err := idx.Batch(batch); err != nil {
		idx.Close()
		return err
	}
	return idx.Close()
}

func lockTimeout(o Options) time.Duration {
	if o.LockTimeout > 0 {
		return o.LockTimeout
	}
	return defaultLockTimeout
}
