package history

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
)

// writer adds documents to the index during an import: through bleve's offline builder when
// there is no index yet (one merged segment, the fastest to build and to search), through
// batches on the open index otherwise. bleve's side runs on a goroutine of its own, so that
// reading, redacting and storing the next messages (a third of an import) overlaps it.
type writer struct {
	a     *Archive
	t     *termer // the import's goroutine's
	idx   bleve.Index
	batch *bleve.Batch
	b     bleve.Builder
	build string // the builder's directory
	docs  int    // documents given to the builder
	built bool   // the index was (re)built by this import
	ops   chan op
	done  chan error
}

// op is one change for bleve's goroutine: a document to index, or an id to delete.
type op struct {
	id  string
	doc map[string]any // nil: delete
}

// batchSize bounds the documents of one batch on an open index.
const batchSize = 2000

// buildMergeMax is how many of its segments (one per 5,000 documents) the builder merges at
// once when it closes. At bleve's default of 10, the 27 segments of 134,000 messages were
// merged in three rounds, most documents twice; in one round the builder's close took 0.76
// s of CPU instead of 1.1 s (CPU profiles, two runs each, interleaved), on the goroutine
// that bounds a first import. The index is the same one segment either way.
const buildMergeMax = 64

// openWriter opens the index for writing. When there is none (or it cannot be read) it
// starts a build, and first gives the builder every message already in the stores, except
// those of the streams in drop (about to be dropped, or read by a diff).
func (a *Archive) openWriter(st *state, drop []string, timeout time.Duration, rep *Report) (*writer, error) {
	w := &writer{a: a, t: newTermer(), ops: make(chan op, 512), done: make(chan error, 1)}
	if _, err := os.Stat(filepath.Join(a.indexDir(), "index_meta.json")); err == nil {
		idx, err := openIndex(a.indexDir(), false, timeout)
		switch {
		case err == nil:
			w.idx, w.batch = idx, idx.NewBatch()
			go w.run(w.ops)
			return w, nil
		case errors.Is(err, ErrBusy):
			return nil, err
		}
		// unreadable: rebuilt below from the stores
	}
	if err := os.MkdirAll(a.dir, 0o755); err != nil {
		return nil, err
	}
	var rb [8]byte
	rand.Read(rb[:])
	w.build = filepath.Join(a.dir, "index.build-"+hex.EncodeToString(rb[:]))
	b, err := bleve.NewBuilder(w.build, newMapping(), map[string]any{"batchSize": 5000, "mergeMax": buildMergeMax})
	if err != nil {
		return nil, err
	}
	w.b, w.built = b, true
	go w.run(w.ops)
	skip := map[string]bool{}
	for _, name := range drop {
		skip[name] = true
	}
	for name, strm := range st.Streams {
		if skip[name] || strm.Messages == 0 {
			continue
		}
		sess := st.Sessions[strm.Session]
		if sess == nil {
			continue
		}
		lines, err := a.readStore(name, strm.Messages)
		if err != nil {
			continue // a store that is gone: its messages are no longer searchable
		}
		for seq := range lines {
			r, ok := lines.get(seq)
			if !ok {
				continue
			}
			if err := w.index(name, &r, sess.Project); err != nil {
				w.abort()
				return nil, err
			}
			rep.Reindexed++
		}
	}
	return w, nil
}

// run applies the ops on bleve's goroutine until ops is closed; the first error ends the
// work (later ops are drained) and is reported on done.
func (w *writer) run(ops <-chan op) {
	var err error
	for o := range ops {
		if err != nil {
			continue
		}
		switch {
		case w.b != nil:
			w.docs++
			err = w.b.Index(o.id, o.doc)
		case o.doc == nil:
			w.batch.Delete(o.id)
		default:
			err = w.batch.Index(o.id, o.doc)
		}
		if err == nil && w.b == nil && w.batch.Size() >= batchSize {
			err = w.flush()
		}
	}
	w.done <- err
}

func (w *writer) building() bool { return w.b != nil }

// index adds the document of r, a message of stream in project.
func (w *writer) index(stream string, r *record, project string) error {
	return w.send(op{docID(stream, r.Seq, r.class()), w.t.fields(r, project)})
}

// indexRead adds the document of r, whose body's terms a read-ahead goroutine made.
func (w *writer) indexRead(stream string, r *record, body terms, project string) error {
	return w.send(op{docID(stream, r.Seq, r.class()), w.t.join(r.Tool, body, project)})
}

// send hands o to the index goroutine, or returns the error that stopped it.
func (w *writer) send(o op) error {
	select {
	case w.ops <- o:
		return nil
	case err := <-w.done:
		w.done <- err
		return fmt.Errorf("index: %w", err)
	}
}

// delete removes a document; a build has nothing to remove.
func (w *writer) delete(id string) error {
	if w.b != nil {
		return nil
	}
	select {
	case w.ops <- op{id: id}:
		return nil
	case err := <-w.done:
		w.done <- err
		return fmt.Errorf("index: %w", err)
	}
}

// finish stops bleve's goroutine and returns its error.
func (w *writer) finish() error {
	if w.ops == nil {
		return nil
	}
	close(w.ops)
	w.ops = nil
	return <-w.done
}

func (w *writer) flush() error {
	if w.batch.Size() == 0 {
		return nil
	}
	if err := w.idx.Batch(w.batch); err != nil {
		return fmt.Errorf("index: %w", err)
	}
	w.batch.Reset()
	return nil
}

// maxSegments: past this many segments an import merges them before it closes. Each import
// of an open index adds a segment (the Stop hook imports after every turn), and a search
// pays for every segment it opens; bleve merges in the background, but only while the index
// is open, and an import is over in milliseconds.
const maxSegments = 8

// close finishes the import's writes: the last batch and a merge, or the build swapped in.
func (w *writer) close(ctx context.Context) error {
	if err := w.finish(); err != nil {
		w.abort()
		return err
	}
	if w.b != nil {
		if w.docs == 0 {
			// the builder cannot make an index of nothing (its Close panics)
			os.RemoveAll(w.build)
			idx, err := bleve.NewUsing(w.build, newMapping(), scorch.Name, scorch.Name, nil)
			if err != nil {
				return err
			}
			if err := idx.Close(); err != nil {
				return err
			}
		} else if err := w.b.Close(); err != nil {
			os.RemoveAll(w.build)
			return fmt.Errorf("build the history index: %w", err)
		}
		os.RemoveAll(w.a.indexDir())
		if err := os.Rename(w.build, w.a.indexDir()); err != nil {
			os.RemoveAll(w.build)
			return err
		}
		return nil
	}
	err := w.flush()
	if err == nil {
		err = merge(ctx, w.idx)
	}
	if cerr := w.idx.Close(); err == nil {
		err = cerr
	}
	return err
}

// abort ends an import that failed: what it gave an open index is written (the state it
// saves names it), an unfinished build is removed (the next import builds again from the
// stores).
func (w *writer) abort() {
	w.finish()
	if w.b != nil {
		if w.docs > 0 {
			w.b.Close()
		}
		os.RemoveAll(w.build)
		return
	}
	w.flush()
	w.idx.Close()
}

// merge merges the segments of an open index when there are too many.
func merge(ctx context.Context, idx bleve.Index) error {
	if numSegments(idx) <= maxSegments {
		return nil
	}
	s, ok := scorchOf(idx)
	if !ok {
		return nil
	}
	// the default tiers, with fewer segments allowed in each: the small segments of recent
	// imports are merged together, a large one of a build is left alone
	opts := mergeplan.DefaultMergePlanOptions
	opts.MaxSegmentsPerTier = 2
	return s.ForceMerge(ctx, &opts)
}

func scorchOf(idx bleve.Index) (*scorch.Scorch, bool) {
	adv, err := idx.Advanced()
	if err != nil {
		return nil, false
	}
	s, ok := adv.(*scorch.Scorch)
	return s, ok
}

// numSegments counts the segments of an index on disk.
func numSegments(idx bleve.Index) uint64 {
	s, ok := scorchOf(idx)
	if !ok {
		return 0
	}
	n, _ := s.StatsMap()["num_root_filesegments"].(uint64)
	return n
}

// openIndex opens a bleve index, waiting at most timeout for a writer's (or, to write,
// every reader's) lock.
func openIndex(dir string, readOnly bool, timeout time.Duration) (bleve.Index, error) {
	if timeout <= 0 {
		timeout = defaultLockTimeout
	}
	idx, err := bleve.OpenUsing(dir, map[string]any{"read_only": readOnly, "bolt_timeout": timeout.String()})
	if err != nil {
		if strings.Contains(err.Error(), "timeout") {
			return nil, ErrBusy
		}
		return nil, fmt.Errorf("open the history index: %w", err)
	}
	return idx, nil
}
