package gitstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// reshareAt is how many entries a split index may carry (replaced, added and deleted) before
// it is folded into a new shared index. It bounds the bytes a capture rewrites (~128 bytes an
// entry) while re-sharing — a full rewrite — happens once every few thousand captures.
const defaultReshareAt = 2000

// buildIndex returns the new .git/index after applying updates (nil: remove the path). It
// writes a new sharedindex.<sha> file first when the index is (re)shared. mayExist says
// whether a path can already be in the index (it was in HEAD); a brand-new path is not looked
// up in the shared index, which keeps an added learning from reading it at all.
func (r *Repo) buildIndex(ix *index, updates map[string]*entry, mayExist func(string) bool) ([]byte, error) {
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
	split := r.splitIndexAllowed()

	if ix.link == nil {
		ix.entries = applyFlat(ix.entries, updates)
		if split && len(ix.entries) > r.reshareAt {
			return r.share(ix)
		}
		return ix.encode(), nil
	}

	shared := r.sharedIndex(ix)
	nrepl := len(ix.link.replaced)
	if nrepl > len(ix.entries) {
		return nil, fmt.Errorf("read git index: %w: more replacements than entries", errIndexFormat)
	}
	replaced := map[uint32]entry{}
	for i, pos := range ix.link.replaced {
		replaced[pos] = ix.entries[i]
	}
	added := append([]entry(nil), ix.entries[nrepl:]...)
	del := map[uint32]bool{}
	for _, pos := range ix.link.del {
		del[pos] = true
	}
	for _, p := range paths {
		u := updates[p]
		n := len(added)
		added = removeNamed(added, p)
		if len(added) == n && mayExist(p) {
			live, err := shared.find(p, del)
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
				del[h.pos] = true
				delete(replaced, h.pos)
			}
		}
		if u != nil {
			added = append(added, *u)
		}
	}
	sortEntries(added)

	if !split || len(replaced)+len(added)+len(del) > r.reshareAt {
		full, err := shared.materialize(replaced, del, added)
		if err != nil {
			return nil, err
		}
		flat := &index{entries: full, exts: ix.exts}
		if !split {
			return flat.encode(), nil
		}
		return r.share(flat)
	}
	front := &index{exts: ix.exts, link: &splitLink{shared: ix.link.shared}}
	for pos := range del {
		front.link.del = append(front.link.del, pos)
	}
	for pos := range replaced {
		front.link.replaced = append(front.link.replaced, pos)
	}
	sort.Slice(front.link.del, func(i, j int) bool { return front.link.del[i] < front.link.del[j] })
	sort.Slice(front.link.replaced, func(i, j int) bool { return front.link.replaced[i] < front.link.replaced[j] })
	for _, pos := range front.link.replaced {
		front.entries = append(front.entries, replaced[pos])
	}
	front.entries = append(front.entries, added...)
	return front.encode(), nil
}

func removeNamed(es []entry, name string) []entry {
	out := es[:0]
	for _, e := range es {
		if e.name != name {
			out = append(out, e)
		}
	}
	return out
}

// share writes every entry of flat into a new shared index and returns the small front
// index that links to it. Shared indexes no longer in use are removed after an hour, so a
// git process that read the previous front index can still open its shared one.
func (r *Repo) share(flat *index) ([]byte, error) {
	data := (&index{entries: flat.entries}).encode()
	var id plumbing.Hash
	copy(id[:], data[len(data)-20:])
	name := filepath.Join(r.gitDir, "sharedindex."+id.String())
	if _, err := os.Stat(name); err != nil {
		if err := r.writeAtomic(name, data, 0o644); err != nil {
			return nil, fmt.Errorf("write shared index: %w", err)
		}
	}
	olds, _ := filepath.Glob(filepath.Join(r.gitDir, "sharedindex.*"))
	for _, o := range olds {
		if fi, err := os.Stat(o); err == nil && o != name && time.Since(fi.ModTime()) > time.Hour {
			os.Remove(o)
		}
	}
	front := &index{exts: flat.exts, link: &splitLink{shared: id}}
	return front.encode(), nil
}

// readIndex parses .git/index; a missing file is an empty index.
func (r *Repo) readIndex() (*index, error) {
	cur, err := os.ReadFile(filepath.Join(r.gitDir, "index"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("read git index: %w", err)
	}
	ix, err := parseIndex(cur)
	if err != nil {
		return nil, fmt.Errorf("read git index: %w", err)
	}
	return ix, nil
}

func (r *Repo) sharedIndex(ix *index) *sharedIndex {
	return &sharedIndex{path: filepath.Join(r.gitDir, "sharedindex."+ix.link.shared.String())}
}

// sharedHit is a live entry of the shared index.
type sharedHit struct {
	pos   uint32
	hash  plumbing.Hash
	stage int
}

// sharedIndex is read only when a change touches a path that may be in it.
type sharedIndex struct {
	path string
	data []byte
}

func (s *sharedIndex) load() error {
	if s.data != nil {
		return nil
	}
	data, err := os.ReadFile(s.path)
	if err != nil {
		return fmt.Errorf("read shared index: %w", err)
	}
	s.data = data
	return nil
}

// find returns name's entries that are not deleted.
func (s *sharedIndex) find(name string, del map[uint32]bool) ([]sharedHit, error) {
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
			if !del[pos] {
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
func (s *sharedIndex) materialize(replaced map[uint32]entry, del map[uint32]bool, added []entry) ([]entry, error) {
	if err := s.load(); err != nil {
		return nil, err
	}
	base, err := parseIndex(s.data)
	if err != nil {
		return nil, fmt.Errorf("read shared index: %w", err)
	}
	out := make([]entry, 0, len(base.entries)+len(added))
	overridden := map[string]bool{}
	for _, e := range added {
		overridden[e.name] = true
	}
	for i, e := range base.entries {
		if del[uint32(i)] || overridden[e.name] {
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
