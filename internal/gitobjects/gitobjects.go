// Package gitobjects reads objects of a git repository — a project's, which can be large —
// looking each one up in the pack indexes where they lie on disk, a binary search of a few
// reads, rather than loading them.
//
// go-git's object storage decodes every pack's whole .idx before it reads one object, and
// to read an object at an offset it then maps every offset of the pack back to its id: in a
// project of 400,000 objects a SessionStart hook spent 79% of its 93 ms there to read ten
// commits and their trees (perf; the same hook took 24 ms in a small project). Here a
// lookup reads the fan-out table once, then about log2(N) names, and a delta's base is
// found by the offset its header gives, with no id needed.
//
// It reads loose objects, packs with version-2 indexes (every git since 1.5.2 writes them),
// delta chains by offset and by id, and alternates, and checks that what it read hashes to the
// id asked for. It never writes. A Store is for one
// goroutine and a short life (a hook, a command); packs added after its first lookup are
// not seen.
package gitobjects

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// ErrReadOnly is what a Store answers to writes.
var ErrReadOnly = errors.New("gitobjects: the store is read-only")

// maxObject bounds what one object may inflate to (a commit or tree of a real project is
// kilobytes; a blob read through here, e.g. by rename detection, is at most this).
const maxObject = 256 << 20

// maxChain bounds a delta chain (git's default depth is 50; --depth=250 is the documented
// aggressive setting).
const maxChain = 4096

// maxAlternates bounds how deep alternates may name alternates (git's own limit is 5).
const maxAlternates = 5

// maxCached bounds the bytes of objects a Store keeps to resolve later deltas against (go-git's
// default object cache holds 96 MB); past it the cache starts again, empty.
const maxCached = 32 << 20

var _ storer.EncodedObjectStorer = (*Store)(nil)

// Store is the objects of one objects directory (and its alternates).
type Store struct {
	dir        string
	depth      int
	listed     bool
	packs      []*pack
	alternates []*Store
	bases      map[baseKey]object // objects read from packs, by where they lie (delta bases)
	cached     int                // bytes in bases
	z          io.ReadCloser      // the zlib reader, reset for each object (inflater)
}

type baseKey struct {
	pack   *pack
	offset int64
}

// link is a delta of a chain, and where it lies.
type link struct {
	key   baseKey
	delta []byte
}

type object struct {
	typ  plumbing.ObjectType
	data []byte
}

// Open is the store of the objects directory dir (a repository's .git/objects, or its common
// directory's for a linked worktree). Nothing is read until an object is asked for.
func Open(dir string) *Store { return open(dir, 0) }

func open(dir string, depth int) *Store {
	return &Store{dir: dir, depth: depth, bases: map[baseKey]object{}}
}

// Close releases the pack files the store opened.
func (s *Store) Close() error {
	var errs []error
	for _, p := range s.packs {
		errs = append(errs, p.close())
	}
	for _, a := range s.alternates {
		errs = append(errs, a.Close())
	}
	return errors.Join(errs...)
}

// NewEncodedObject is an empty in-memory object (storer.EncodedObjectStorer).
func (s *Store) NewEncodedObject() plumbing.EncodedObject { return &plumbing.MemoryObject{} }

// SetEncodedObject fails: the store is read-only.
func (s *Store) SetEncodedObject(plumbing.EncodedObject) (plumbing.Hash, error) {
	return plumbing.ZeroHash, ErrReadOnly
}

// IterEncodedObjects fails: iterating every object is what this package avoids.
func (s *Store) IterEncodedObjects(plumbing.ObjectType) (storer.EncodedObjectIter, error) {
	return nil, fmt.Errorf("gitobjects: iterating objects is not supported")
}

// AddAlternate fails: the store is read-only.
func (s *Store) AddAlternate(string) error { return ErrReadOnly }

// HasEncodedObject is nil when the store has the object h, plumbing.ErrObjectNotFound when
// it does not.
func (s *Store) HasEncodedObject(h plumbing.Hash) error {
	ok, err := s.has(h)
	if err == nil && !ok {
		err = plumbing.ErrObjectNotFound
	}
	return err
}

// EncodedObjectSize is the size of the object h's content.
func (s *Store) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	o, err := s.EncodedObject(plumbing.AnyObject, h)
	if err != nil {
		return 0, err
	}
	return o.Size(), nil
}

// EncodedObject is the object h, when its type is t (or t is plumbing.AnyObject);
// plumbing.ErrObjectNotFound otherwise, as go-git's storages answer.
func (s *Store) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	o, ok, err := s.read(h, 0)
	if err != nil {
		return nil, err
	}
	if !ok || t != plumbing.AnyObject && o.typ != t {
		return nil, plumbing.ErrObjectNotFound
	}
	mo := &plumbing.MemoryObject{}
	mo.SetType(o.typ)
	mo.SetSize(int64(len(o.data)))
	if _, err := mo.Write(o.data); err != nil {
		return nil, err
	}
	if got := mo.Hash(); got != h {
		// a flipped bit that zlib's checksum let through, a header or delta base gone wrong
		return nil, fmt.Errorf("gitobjects: object %s in %s reads as %s: the repository is corrupt", h, s.dir, got)
	}
	return mo, nil
}

// has says whether h is here, loose, packed or in an alternate, without reading it.
func (s *Store) has(h plumbing.Hash) (bool, error) {
	if _, err := os.Stat(s.loosePath(h)); err == nil {
		return true, nil
	}
	if err := s.list(); err != nil {
		return false, err
	}
	for _, p := range s.packs {
		if _, ok, err := p.find(h); err != nil || ok {
			return ok, err
		}
	}
	for _, a := range s.alternates {
		if ok, err := a.has(h); err != nil || ok {
			return ok, err
		}
	}
	return false, nil
}

// read is the object h, from wherever it is; chained counts the deltas already followed to
// get here (a reference delta's base is read by id, and ids can make a loop).
func (s *Store) read(h plumbing.Hash, chained int) (object, bool, error) {
	if o, ok, err := s.readLoose(h); err != nil || ok {
		return o, ok, err
	}
	if err := s.list(); err != nil {
		return object{}, false, err
	}
	for _, p := range s.packs {
		off, ok, err := p.find(h)
		if err != nil {
			return object{}, false, err
		}
		if ok {
			o, err := s.readPacked(p, off, chained)
			return o, err == nil, err
		}
	}
	for _, a := range s.alternates {
		if o, ok, err := a.read(h, chained); err != nil || ok {
			return o, ok, err
		}
	}
	return object{}, false, nil
}

func (s *Store) loosePath(h plumbing.Hash) string {
	x := h.String()
	return filepath.Join(s.dir, x[:2], x[2:])
}

func (s *Store) readLoose(h plumbing.Hash) (object, bool, error) {
	f, err := os.Open(s.loosePath(h))
	if errors.Is(err, os.ErrNotExist) {
		return object{}, false, nil
	}
	if err != nil {
		return object{}, false, err
	}
	defer f.Close()
	z, err := s.inflater(f)
	if err != nil {
		return object{}, false, fmt.Errorf("loose object %s: %w", h, err)
	}
	// the header: "<type> <size>\x00"
	var head [32]byte
	n := 0
	for ; n < len(head); n++ {
		if _, err := io.ReadFull(z, head[n:n+1]); err != nil {
			return object{}, false, fmt.Errorf("loose object %s: %w", h, err)
		}
		if head[n] == 0 {
			break
		}
	}
	name, sz, ok := strings.Cut(string(head[:n]), " ")
	t, terr := plumbing.ParseObjectType(name)
	size, serr := strconv.ParseInt(sz, 10, 64)
	if n == len(head) || !ok || terr != nil || serr != nil || size < 0 || size > maxObject {
		return object{}, false, fmt.Errorf("loose object %s: a bad header %q", h, head[:n])
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(z, data); err != nil {
		return object{}, false, fmt.Errorf("loose object %s: %w", h, err)
	}
	return object{t, data}, true, nil
}

// inflater is a zlib reader of r, the store's one reset for each object: a new one allocates
// its ~40 KB of window and tables, and a session start reads tens of trees.
func (s *Store) inflater(r io.Reader) (io.Reader, error) {
	br := bufio.NewReaderSize(r, 4096)
	if s.z == nil {
		z, err := zlib.NewReader(br)
		if err != nil {
			return nil, err
		}
		s.z = z
		return z, nil
	}
	if err := s.z.(zlib.Resetter).Reset(br, nil); err != nil {
		return nil, err
	}
	return s.z, nil
}

// list finds the packs (each .idx with its .pack) and the alternates, once.
func (s *Store) list() error {
	if s.listed {
		return nil
	}
	s.listed = true
	names, err := filepath.Glob(filepath.Join(s.dir, "pack", "pack-*.idx"))
	if err != nil {
		return err
	}
	for _, idx := range names {
		data := strings.TrimSuffix(idx, ".idx") + ".pack"
		if _, err := os.Stat(data); err == nil {
			s.packs = append(s.packs, &pack{idxPath: idx, packPath: data})
		}
	}
	if s.depth >= maxAlternates {
		return nil
	}
	data, err := os.ReadFile(filepath.Join(s.dir, "info", "alternates"))
	if err != nil {
		return nil // none
	}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		if !filepath.IsAbs(line) {
			line = filepath.Join(s.dir, line)
		}
		s.alternates = append(s.alternates, open(filepath.Clean(line), s.depth+1))
	}
	return nil
}

// readPacked is the object at off in p, its deltas applied (chained: see read).
func (s *Store) readPacked(p *pack, off int64, chained int) (object, error) {
	var chain []link
	for {
		key := baseKey{p, off}
		if o, ok := s.bases[key]; ok {
			return s.apply(o, chain)
		}
		if chained+len(chain) > maxChain {
			return object{}, fmt.Errorf("%s: a delta chain longer than %d at offset %d", p.packPath, maxChain, off)
		}
		h, err := p.header(off)
		if err != nil {
			return object{}, err
		}
		data, err := s.inflate(p, h.dataAt, h.size)
		if err != nil {
			return object{}, err
		}
		switch h.typ {
		case plumbing.CommitObject, plumbing.TreeObject, plumbing.BlobObject, plumbing.TagObject:
			o := object{h.typ, data}
			s.keep(key, o)
			return s.apply(o, chain)
		case plumbing.OFSDeltaObject:
			chain = append(chain, link{key, data})
			off = h.base
		case plumbing.REFDeltaObject:
			chain = append(chain, link{key, data})
			base, ok, err := s.read(h.ref, chained+len(chain))
			if err != nil {
				return object{}, err
			}
			if !ok {
				return object{}, fmt.Errorf("%s: the base %s of the delta at offset %d is missing", p.packPath, h.ref, key.offset)
			}
			return s.apply(base, chain)
		default:
			return object{}, fmt.Errorf("%s: object type %d at offset %d", p.packPath, h.typ, off)
		}
	}
}

// apply applies the deltas of chain, last first, to base, keeping each result as a base.
func (s *Store) apply(base object, chain []link) (object, error) {
	for i := len(chain) - 1; i >= 0; i-- {
		data, err := packfile.PatchDelta(base.data, chain[i].delta)
		if err != nil {
			return object{}, fmt.Errorf("%s: the delta at offset %d: %w", chain[i].key.pack.packPath, chain[i].key.offset, err)
		}
		base = object{base.typ, data}
		s.keep(chain[i].key, base)
	}
	return base, nil
}

// keep remembers o, read at key, as a base for deltas still to come, within maxCached.
func (s *Store) keep(key baseKey, o object) {
	if len(o.data) > maxCached/4 {
		return
	}
	if s.cached+len(o.data) > maxCached {
		clear(s.bases)
		s.cached = 0
	}
	s.bases[key] = o
	s.cached += len(o.data)
}

// pack is one pack and its version-2 index, read in place.
type pack struct {
	idxPath, packPath string
	idx, data         *os.File
	fanout            [256]uint32
	opened            bool
	openErr           error
}

func (p *pack) close() error {
	var errs []error
	if p.idx != nil {
		errs = append(errs, p.idx.Close())
	}
	if p.data != nil {
		errs = append(errs, p.data.Close())
	}
	return errors.Join(errs...)
}

// open opens both files and reads the index's header and fan-out table.
func (p *pack) open() error {
	if p.opened {
		return p.openErr
	}
	p.opened = true
	p.openErr = func() error {
		var err error
		if p.idx, err = os.Open(p.idxPath); err != nil {
			return err
		}
		var head [8 + 256*4]byte
		if _, err := p.idx.ReadAt(head[:], 0); err != nil {
			return fmt.Errorf("%s: %w", p.idxPath, err)
		}
		if !bytes.Equal(head[:4], []byte{0xff, 't', 'O', 'c'}) || binary.BigEndian.Uint32(head[4:8]) != 2 {
			return fmt.Errorf("%s: not a version-2 pack index", p.idxPath)
		}
		for i := range p.fanout {
			p.fanout[i] = binary.BigEndian.Uint32(head[8+4*i:])
		}
		for i := 1; i < 256; i++ {
			if p.fanout[i] < p.fanout[i-1] {
				return fmt.Errorf("%s: fan-out table not sorted", p.idxPath)
			}
		}
		if p.data, err = os.Open(p.packPath); err != nil {
			return err
		}
		return nil
	}()
	return p.openErr
}

const idxNames = 8 + 256*4 // where the sorted object names start

// find is the offset of h in the pack, by binary search of the index's names.
func (p *pack) find(h plumbing.Hash) (int64, bool, error) {
	if err := p.open(); err != nil {
		return 0, false, err
	}
	n := int64(p.fanout[255])
	lo, hi := int64(0), int64(p.fanout[h[0]])
	if h[0] > 0 {
		lo = int64(p.fanout[h[0]-1])
	}
	var name [20]byte
	for lo < hi {
		mid := lo + (hi-lo)/2
		if _, err := p.idx.ReadAt(name[:], idxNames+20*mid); err != nil {
			return 0, false, fmt.Errorf("%s: %w", p.idxPath, err)
		}
		switch c := bytes.Compare(name[:], h[:]); {
		case c == 0:
			return p.offset(n, mid)
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return 0, false, nil
}

// offset is the pack offset of the i-th of n objects of the index.
func (p *pack) offset(n, i int64) (int64, bool, error) {
	offsets := idxNames + 20*n + 4*n
	var b [8]byte
	if _, err := p.idx.ReadAt(b[:4], offsets+4*i); err != nil {
		return 0, false, fmt.Errorf("%s: %w", p.idxPath, err)
	}
	o := binary.BigEndian.Uint32(b[:4])
	if o&0x80000000 == 0 {
		return int64(o), true, nil
	}
	large := offsets + 4*n + 8*int64(o&0x7fffffff)
	if _, err := p.idx.ReadAt(b[:], large); err != nil {
		return 0, false, fmt.Errorf("%s: %w", p.idxPath, err)
	}
	off := binary.BigEndian.Uint64(b[:])
	if off > 1<<62 {
		return 0, false, fmt.Errorf("%s: offset %d out of range", p.idxPath, off)
	}
	return int64(off), true, nil
}

type header struct {
	typ    plumbing.ObjectType
	size   int64
	dataAt int64         // where the compressed data starts
	base   int64         // an offset delta's base
	ref    plumbing.Hash // a reference delta's base
}

// header reads the object header at off: type and size, then an offset delta's negative
// offset or a reference delta's base id.
func (p *pack) header(off int64) (header, error) {
	var buf [32]byte
	n, err := p.data.ReadAt(buf[:], off)
	if n == 0 {
		return header{}, fmt.Errorf("%s: offset %d: %w", p.packPath, off, err)
	}
	b := buf[:n]
	i := 0
	next := func() (byte, error) {
		if i >= len(b) {
			return 0, fmt.Errorf("%s: a truncated object header at offset %d", p.packPath, off)
		}
		c := b[i]
		i++
		return c, nil
	}
	c, err := next()
	if err != nil {
		return header{}, err
	}
	h := header{typ: plumbing.ObjectType(c >> 4 & 7), size: int64(c & 15)}
	for shift := 4; c&0x80 != 0; shift += 7 {
		if c, err = next(); err != nil {
			return header{}, err
		}
		if shift > 56 {
			return header{}, fmt.Errorf("%s: object size overflows at offset %d", p.packPath, off)
		}
		h.size |= int64(c&0x7f) << shift
	}
	switch h.typ {
	case plumbing.OFSDeltaObject:
		if c, err = next(); err != nil {
			return header{}, err
		}
		rel := int64(c & 0x7f)
		for c&0x80 != 0 {
			if c, err = next(); err != nil {
				return header{}, err
			}
			if rel > 1<<55 {
				return header{}, fmt.Errorf("%s: delta base offset overflows at offset %d", p.packPath, off)
			}
			rel = (rel+1)<<7 | int64(c&0x7f)
		}
		if rel <= 0 || rel > off {
			return header{}, fmt.Errorf("%s: delta base %d bytes before offset %d", p.packPath, rel, off)
		}
		h.base = off - rel
	case plumbing.REFDeltaObject:
		if i+20 > len(b) {
			return header{}, fmt.Errorf("%s: a truncated object header at offset %d", p.packPath, off)
		}
		copy(h.ref[:], b[i:i+20])
		i += 20
	}
	h.dataAt = off + int64(i)
	return h, nil
}

// inflate reads the zlib stream at off in p, which holds size bytes.
func (s *Store) inflate(p *pack, off, size int64) ([]byte, error) {
	if size < 0 || size > maxObject {
		return nil, fmt.Errorf("%s: object of %d bytes at offset %d", p.packPath, size, off)
	}
	z, err := s.inflater(io.NewSectionReader(p.data, off, 1<<62))
	if err != nil {
		return nil, fmt.Errorf("%s: offset %d: %w", p.packPath, off, err)
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(z, data); err != nil {
		return nil, fmt.Errorf("%s: offset %d: %w", p.packPath, off, err)
	}
	return data, nil
}
