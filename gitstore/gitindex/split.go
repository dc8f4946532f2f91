package gitindex

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// DefaultReshareAt is how many entries a split index may carry (replaced, added and deleted)
// before it is folded into a new shared index. It bounds the bytes a capture rewrites (~128
// bytes an entry) while re-sharing — a full rewrite — happens once every few thousand
// captures.
const DefaultReshareAt = 2000

// Options says how Update writes the index.
type Options struct {
	Split     bool // false when git is told not to split (core.splitIndex=false): a flat index
	ReshareAt int  // see DefaultReshareAt
	// WriteShared writes a new sharedindex.<sha> file atomically; it is in place before the
	// front index that links to it.
	WriteShared func(path string, data []byte) error
}

// Update returns the new index file after applying updates (nil: remove the path). It
// writes a new shared index first when the index is (re)shared. mayExist says whether a path
// can already be in the index (it was in HEAD); a brand-new path is not looked up in the
// shared index, which keeps an added learning from reading it at all.
func (ix *File) Update(updates map[string]*Entry, mayExist func(string) bool, o Options) ([]byte, error) {
	paths := make([]string, 0, len(updates))
	for p := range updates {
		paths = append(paths, p)
	}
	kept := ix.exts[:0]
	for _, x := range ix.exts {
		if d, err := invalidateTree(x.data, paths); err == nil {
			kept = append(kept, extension{x.sig, d})
		}
	}
	ix.exts = kept

	if ix.link == nil {
		ix.entries = applyFlat(ix.entries, updates)
		if o.Split && len(ix.entries) > o.ReshareAt {
			return ix.share(o)
		}
		return ix.encode(), nil
	}

	shared := ix.shared()
	nrepl := len(ix.link.replaced)
	replaced := map[uint32]Entry{}
	for i, pos := range ix.link.replaced {
		replaced[pos] = ix.entries[i]
	}
	added := append([]Entry(nil), ix.entries[nrepl:]...)
	for _, p := range paths {
		u := updates[p]
		n := len(added)
		added = removeNamed(added, p)
		if len(added) == n && mayExist(p) {
			live, err := shared.find(p)
			if err != nil {
				return nil, err
			}
			if len(live) == 1 && u != nil {
				e := *u
				e.name = ""
				replaced[live[0].pos] = e
				continue
			}
			for _, h := range live {
				shared.delete(h.pos)
				delete(replaced, h.pos)
			}
		}
		if u != nil {
			added = append(added, *u)
		}
	}
	sortEntries(added)

	if !o.Split || uint64(len(replaced)+len(added))+shared.deletions() > uint64(o.ReshareAt) {
		full, err := shared.materialize(replaced, added)
		if err != nil {
			return nil, err
		}
		flat := &File{dir: ix.dir, entries: full, exts: ix.exts}
		if !o.Split {
			return flat.encode(), nil
		}
		return flat.share(o)
	}
	front := &File{exts: ix.exts, link: &splitLink{shared: ix.link.shared, del: shared.bitmap()}}
	for pos := range replaced {
		front.link.replaced = append(front.link.replaced, pos)
	}
	sort.Slice(front.link.replaced, func(i, j int) bool { return front.link.replaced[i] < front.link.replaced[j] })
	for _, pos := range front.link.replaced {
		front.entries = append(front.entries, replaced[pos])
	}
	front.entries = append(front.entries, added...)
	return front.encode(), nil
}

// Lookup calls fn for every live entry of each of paths (all stages) — in a split index the
// front's first, then the shared index's for a path that mayExist and was not in the front —
// and stops at the first error fn returns.
func (ix *File) Lookup(paths []string, mayExist func(string) bool, fn func(path string, id plumbing.Hash, stage int) error) error {
	want := make(map[string]bool, len(paths))
	for _, p := range paths {
		want[p] = true
	}
	if ix.link == nil {
		for i := range ix.entries {
			if e := &ix.entries[i]; want[e.name] {
				if err := fn(e.name, e.hash, e.stage()); err != nil {
					return err
				}
			}
		}
		return nil
	}
	nrepl := len(ix.link.replaced)
	replaced := map[uint32]*Entry{}
	for i, pos := range ix.link.replaced {
		replaced[pos] = &ix.entries[i]
	}
	found := map[string]bool{}
	for i := range ix.entries[nrepl:] {
		if e := &ix.entries[nrepl+i]; want[e.name] {
			found[e.name] = true
			if err := fn(e.name, e.hash, e.stage()); err != nil {
				return err
			}
		}
	}
	shared := ix.shared()
	for _, p := range paths {
		if !mayExist(p) || found[p] {
			continue // a new path is never looked up in the shared index (see Update)
		}
		hits, err := shared.find(p)
		if err != nil {
			return err
		}
		for _, h := range hits {
			id, stage := h.hash, h.stage
			if e, ok := replaced[h.pos]; ok {
				id, stage = e.hash, e.stage()
			}
			if err := fn(p, id, stage); err != nil {
				return err
			}
		}
	}
	return nil
}

func removeNamed(es []Entry, name string) []Entry {
	out := es[:0]
	for _, e := range es {
		if e.name != name {
			out = append(out, e)
		}
	}
	return out
}

// share writes every entry of ix (a flat index) into a new shared index and returns the small front
// index that links to it. Shared indexes no longer in use are removed after an hour, so a
// git process that read the previous front index can still open its shared one.
func (ix *File) share(o Options) ([]byte, error) {
	data := (&File{entries: ix.entries}).encode()
	var id plumbing.Hash
	copy(id[:], data[len(data)-20:])
	name := filepath.Join(ix.dir, "sharedindex."+id.String())
	if _, err := os.Stat(name); err != nil {
		if err := o.WriteShared(name, data); err != nil {
			return nil, fmt.Errorf("write shared index: %w", err)
		}
	}
	olds, _ := filepath.Glob(filepath.Join(ix.dir, "sharedindex.*"))
	for _, old := range olds {
		if fi, err := os.Stat(old); err == nil && old != name && time.Since(fi.ModTime()) > time.Hour {
			os.Remove(old)
		}
	}
	front := &File{exts: ix.exts, link: &splitLink{shared: id}}
	return front.encode(), nil
}

func (ix *File) shared() *sharedIndex {
	return &sharedIndex{
		path: filepath.Join(ix.dir, "sharedindex."+ix.link.shared.String()),
		del:  ix.link.del,
	}
}

// sharedHit is a live entry of the shared index.
type sharedHit struct {
	pos   uint32
	hash  plumbing.Hash
	stage int
}

// sharedIndex is read only when a change touches a path that may be in it.
type sharedIndex struct {
	path    string
	data    []byte
	del     bitmap          // the front's deletions as read
	deleted map[uint32]bool // once loaded: the front's deletions and this update's
	changed bool            // this update deleted an entry
}

// load reads the shared index and expands the front's delete bitmap, which only the shared
// index's entry count bounds.
func (s *sharedIndex) load() error {
	if s.data != nil {
		return nil
	}
	data, err := os.ReadFile(s.path)
	if err != nil {
		return fmt.Errorf("read shared index: %w", err)
	}
	rd, err := newEntryReader(data)
	if err != nil {
		return fmt.Errorf("read shared index: %w", err)
	}
	if s.del.ones > uint64(rd.count) {
		return fmt.Errorf("read shared index: %w: more deletions than entries", errIndexFormat)
	}
	s.deleted = make(map[uint32]bool, s.del.ones)
	for _, pos := range s.del.positions() {
		s.deleted[pos] = true
	}
	s.data = data
	return nil
}

func (s *sharedIndex) delete(pos uint32) {
	s.deleted[pos] = true
	s.changed = true
}

// deletions counts the deleted shared entries without reading the shared index.
func (s *sharedIndex) deletions() uint64 {
	if s.deleted == nil {
		return s.del.ones
	}
	return uint64(len(s.deleted))
}

// bitmap returns the delete bitmap to write: the one read, unless this update added to it.
func (s *sharedIndex) bitmap() bitmap {
	if !s.changed {
		return s.del
	}
	pos := make([]uint32, 0, len(s.deleted))
	for p := range s.deleted {
		pos = append(pos, p)
	}
	sort.Slice(pos, func(i, j int) bool { return pos[i] < pos[j] })
	raw := encodeEWAH(pos)
	return bitmap{raw: raw, ones: uint64(len(pos))}
}

// find returns name's entries that are not deleted.
func (s *sharedIndex) find(name string) ([]sharedHit, error) {
	if err := s.load(); err != nil {
		return nil, err
	}
	rd, err := newEntryReader(s.data)
	if err != nil {
		return nil, fmt.Errorf("read shared index: %w", err)
	}
	var out []sharedHit
	for rd.i < rd.count {
		pos := uint32(rd.i)
		fixed, _, n, err := rd.next()
		if err != nil {
			return nil, fmt.Errorf("read shared index: %w", err)
		}
		if c := strings.Compare(string(n), name); c == 0 {
			if !s.deleted[pos] {
				h := sharedHit{pos: pos, stage: int(binary.BigEndian.Uint16(fixed[60:])&flagStageMask) >> 12}
				copy(h.hash[:], fixed[40:60])
				out = append(out, h)
			}
		} else if c > 0 {
			break
		}
	}
	return out, nil
}

// materialize returns the whole index the split pair stands for.
func (s *sharedIndex) materialize(replaced map[uint32]Entry, added []Entry) ([]Entry, error) {
	if err := s.load(); err != nil {
		return nil, err
	}
	base, err := parse(s.data)
	if err != nil {
		return nil, fmt.Errorf("read shared index: %w", err)
	}
	out := make([]Entry, 0, len(base.entries)+len(added))
	overridden := map[string]bool{}
	for _, e := range added {
		overridden[e.name] = true
	}
	for i, e := range base.entries {
		if s.deleted[uint32(i)] || overridden[e.name] {
			continue
		}
		if r, ok := replaced[uint32(i)]; ok {
			r.name = e.name
			e = r
		}
		out = append(out, e)
	}
	out = append(out, added...)
	sortEntries(out)
	return out, nil
}
