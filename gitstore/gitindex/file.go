package gitindex

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

const (
	entryFixed    = 62 // ctime, mtime, dev, ino, mode, uid, gid, size (10×4), sha (20), flags (2)
	entryMin      = 64 // the smallest entry of any version: padded to 8 (v2, v3), varint and NUL (v4)
	flagExtended  = 0x4000
	flagStageMask = 0x3000
	nameMask      = 0x0FFF
)

var errIndexFormat = errors.New("malformed git index")

// Entry is one index entry: the file's stat data, blob id and path.
type Entry struct {
	stat   [10]uint32 // ctime s, ns, mtime s, ns, dev, ino, mode, uid, gid, size
	hash   plumbing.Hash
	flags  uint16 // assume-valid, extended and stage bits; the name length is derived
	xflags uint16 // v3+ extended flags (skip-worktree, intent-to-add), with flagExtended
	name   string
}

func (e *Entry) stage() int { return int(e.flags&flagStageMask) >> 12 }

// NewEntry is the stage-0 entry of the work-tree file name, whose blob is id and whose
// Lstat is fi.
func NewEntry(name string, id plumbing.Hash, fi os.FileInfo, executable bool) Entry {
	e := Entry{hash: id, name: name}
	fillStat(&e, fi)
	if executable {
		e.stat[6] = 0o100755
	}
	return e
}

type extension struct {
	sig  string
	data []byte
}

// splitLink is the "link" extension: the shared index this one is layered on, which of the
// shared entries are deleted and which are replaced by the first entries of this file.
type splitLink struct {
	shared   plumbing.Hash
	del      bitmap // expanded only against the shared index it indexes
	replaced []uint32
}

// File is a parsed .git/index. A split one holds only the front; its shared index is read
// when a change needs it.
type File struct {
	dir     string // the git directory, where sharedindex.<sha> lives
	version uint32
	entries []Entry     // for a split index: the replacements (no names), then added entries
	exts    []extension // optional extensions kept on rewrite (only TREE, invalidated)
	link    *splitLink
}

// Read parses gitDir/index; a missing file is an empty index.
func Read(gitDir string) (*File, error) {
	cur, err := os.ReadFile(filepath.Join(gitDir, "index"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("read git index: %w", err)
	}
	f, err := parse(cur)
	if err != nil {
		return nil, fmt.Errorf("read git index: %w", err)
	}
	f.dir = gitDir
	return f, nil
}

// entryReader walks the entries of an index file without allocating per entry.
type entryReader struct {
	data    []byte
	version uint32
	count   int
	i, off  int
	name    []byte
}

func newEntryReader(data []byte) (*entryReader, error) {
	if len(data) < 12+20 || string(data[:4]) != "DIRC" {
		return nil, errIndexFormat
	}
	v := binary.BigEndian.Uint32(data[4:])
	if v < 2 || v > 4 {
		return nil, fmt.Errorf("%w: version %d", errIndexFormat, v)
	}
	// the count is checked against the file before anything is sized by it
	count := int(binary.BigEndian.Uint32(data[8:]))
	if count > (len(data)-12-20)/entryMin {
		return nil, fmt.Errorf("%w: %d entries in %d bytes", errIndexFormat, count, len(data))
	}
	return &entryReader{data: data, version: v, count: count, off: 12}, nil
}

// next returns the fixed part, the extended flags and the name of the next entry; the name
// is only valid until the following call.
func (r *entryReader) next() (fixed []byte, xflags uint16, name []byte, err error) {
	d, off := r.data, r.off
	if off+entryFixed > len(d)-20 {
		return nil, 0, nil, errIndexFormat
	}
	fixed = d[off : off+entryFixed]
	flags := binary.BigEndian.Uint16(fixed[60:])
	p := off + entryFixed
	if flags&flagExtended != 0 {
		if r.version < 3 || p+2 > len(d) {
			return nil, 0, nil, errIndexFormat
		}
		xflags = binary.BigEndian.Uint16(d[p:])
		p += 2
	}
	if r.version == 4 {
		strip, n := decodeVarint(d[p:])
		if n == 0 || strip > uint64(len(r.name)) {
			return nil, 0, nil, errIndexFormat
		}
		p += n
		end := bytes.IndexByte(d[p:], 0)
		if end < 0 {
			return nil, 0, nil, errIndexFormat
		}
		r.name = append(r.name[:len(r.name)-int(strip)], d[p:p+end]...)
		r.off = p + end + 1
	} else {
		nl := int(flags & nameMask)
		if nl == nameMask {
			nl = bytes.IndexByte(d[p:], 0)
			if nl < 0 {
				return nil, 0, nil, errIndexFormat
			}
		}
		if p+nl > len(d) {
			return nil, 0, nil, errIndexFormat
		}
		r.name = append(r.name[:0], d[p:p+nl]...)
		r.off = off + ((p - off + nl + 8) &^ 7)
	}
	r.i++
	return fixed, xflags, r.name, nil
}

// decodeVarint reads git's offset varint (varint.c); n is 0 on malformed input.
func decodeVarint(b []byte) (uint64, int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	v := uint64(c & 127)
	i := 1
	for c&128 != 0 {
		if i >= len(b) || v >= 1<<56 {
			return 0, 0
		}
		v++
		c = b[i]
		i++
		v = v<<7 + uint64(c&127)
	}
	return v, i
}

func decodeEntry(fixed []byte, xflags uint16, name []byte) Entry {
	var e Entry
	for k := range e.stat {
		e.stat[k] = binary.BigEndian.Uint32(fixed[4*k:])
	}
	copy(e.hash[:], fixed[40:60])
	e.flags = binary.BigEndian.Uint16(fixed[60:]) &^ nameMask
	e.xflags = xflags
	e.name = string(name)
	return e
}

// parse decodes a whole index file. A nil or empty data is an empty index.
func parse(data []byte) (*File, error) {
	if len(data) == 0 {
		return &File{version: 2}, nil
	}
	r, err := newEntryReader(data)
	if err != nil {
		return nil, err
	}
	ix := &File{version: r.version, entries: make([]Entry, 0, r.count)}
	for r.i < r.count {
		fixed, xf, name, err := r.next()
		if err != nil {
			return nil, err
		}
		ix.entries = append(ix.entries, decodeEntry(fixed, xf, name))
	}
	off, end := r.off, len(data)-20
	for off+8 <= end {
		sig := string(data[off : off+4])
		size := int(binary.BigEndian.Uint32(data[off+4:]))
		if off+8+size > end {
			return nil, fmt.Errorf("%w: extension %q overruns the file", errIndexFormat, sig)
		}
		body := data[off+8 : off+8+size]
		off += 8 + size
		switch {
		case sig == "link":
			l, err := parseLink(body, len(ix.entries))
			if err != nil {
				return nil, err
			}
			ix.link = l
		case sig == "TREE":
			ix.exts = append(ix.exts, extension{sig, body})
		case sig[0] >= 'A' && sig[0] <= 'Z':
			// optional caches (REUC, UNTR, FSMN, EOIE, IEOT): safe to drop; git rebuilds them
		default:
			return nil, fmt.Errorf("git index uses extension %q, which reflect cannot keep; "+
				"run `git update-index --no-sparse-index` in the repository", sig)
		}
	}
	return ix, nil
}

// parseLink reads the link extension of an index with nfront entries, each replacement one
// of which.
func parseLink(b []byte, nfront int) (*splitLink, error) {
	if len(b) < 20 {
		return nil, errIndexFormat
	}
	l := &splitLink{}
	copy(l.shared[:], b[:20])
	if len(b) == 20 {
		return l, nil
	}
	del, n, err := readEWAH(b[20:])
	if err != nil {
		return nil, err
	}
	repl, _, err := readEWAH(b[20+n:])
	if err != nil {
		return nil, err
	}
	if repl.ones > uint64(nfront) {
		return nil, fmt.Errorf("%w: more replacements than entries", errIndexFormat)
	}
	l.del, l.replaced = del, repl.positions()
	return l, nil
}

// encode writes the index in version 2 (3 when an entry needs extended flags), its trailer
// included.
func (ix *File) encode() []byte {
	version := uint32(2)
	for i := range ix.entries {
		if ix.entries[i].flags&flagExtended != 0 {
			version = 3
		}
	}
	var b bytes.Buffer
	b.Grow(64 + len(ix.entries)*128)
	b.WriteString("DIRC")
	binary.Write(&b, binary.BigEndian, version)
	binary.Write(&b, binary.BigEndian, uint32(len(ix.entries)))
	var fixed [entryFixed + 2]byte
	for i := range ix.entries {
		e := &ix.entries[i]
		for k, v := range e.stat {
			binary.BigEndian.PutUint32(fixed[4*k:], v)
		}
		copy(fixed[40:60], e.hash[:])
		nl := len(e.name)
		if nl > nameMask {
			nl = nameMask
		}
		binary.BigEndian.PutUint16(fixed[60:], e.flags|uint16(nl))
		hdr := entryFixed
		if e.flags&flagExtended != 0 {
			binary.BigEndian.PutUint16(fixed[62:], e.xflags)
			hdr += 2
		}
		b.Write(fixed[:hdr])
		b.WriteString(e.name)
		pad := ((hdr + len(e.name) + 8) &^ 7) - hdr - len(e.name)
		b.Write(make([]byte, pad))
	}
	if ix.link != nil {
		var l bytes.Buffer
		l.Write(ix.link.shared[:])
		l.Write(ix.link.del.encode())
		l.Write(encodeEWAH(ix.link.replaced))
		writeExt(&b, "link", l.Bytes())
	}
	for _, x := range ix.exts {
		writeExt(&b, x.sig, x.data)
	}
	sum := sha1.Sum(b.Bytes())
	b.Write(sum[:])
	return b.Bytes()
}

func writeExt(b *bytes.Buffer, sig string, data []byte) {
	b.WriteString(sig)
	binary.Write(b, binary.BigEndian, uint32(len(data)))
	b.Write(data)
}

func sortEntries(es []Entry) {
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].name != es[j].name {
			return es[i].name < es[j].name
		}
		return es[i].stage() < es[j].stage()
	})
}

// applyFlat replaces every entry of each updated path (all stages) by its new entry, or
// removes it when the update is nil.
func applyFlat(entries []Entry, updates map[string]*Entry) []Entry {
	out := entries[:0:0]
	for _, e := range entries {
		if _, ok := updates[e.name]; !ok {
			out = append(out, e)
		}
	}
	for _, u := range updates {
		if u != nil {
			out = append(out, *u)
		}
	}
	sortEntries(out)
	return out
}

// invalidateTree marks the cache-tree (TREE extension) nodes above every changed path as
// invalid, as git does when it updates an entry; the rest of the cache stays valid.
func invalidateTree(data []byte, paths []string) ([]byte, error) {
	dirs := map[string]bool{"": true}
	for _, p := range paths {
		for i := strings.LastIndexByte(p, '/'); i > 0; i = strings.LastIndexByte(p[:i], '/') {
			dirs[p[:i]] = true
		}
	}
	var out bytes.Buffer
	rest, err := rewriteTreeNode(data, "", true, dirs, &out)
	if err != nil || len(rest) != 0 {
		return nil, errIndexFormat
	}
	return out.Bytes(), nil
}

func rewriteTreeNode(b []byte, parent string, root bool, dirs map[string]bool, out *bytes.Buffer) ([]byte, error) {
	nul := bytes.IndexByte(b, 0)
	if nul < 0 {
		return nil, errIndexFormat
	}
	name := string(b[:nul])
	b = b[nul+1:]
	sp := bytes.IndexByte(b, ' ')
	nl := bytes.IndexByte(b, '\n')
	if sp < 0 || nl < sp {
		return nil, errIndexFormat
	}
	count, err1 := strconv.Atoi(string(b[:sp]))
	subs, err2 := strconv.Atoi(string(b[sp+1 : nl]))
	if err1 != nil || err2 != nil {
		return nil, errIndexFormat
	}
	b = b[nl+1:]
	var id []byte
	if count >= 0 {
		if len(b) < 20 {
			return nil, errIndexFormat
		}
		id, b = b[:20], b[20:]
	}
	path := name
	if !root && parent != "" {
		path = parent + "/" + name
	}
	out.WriteString(name)
	out.WriteByte(0)
	if dirs[path] {
		fmt.Fprintf(out, "-1 %d\n", subs)
	} else {
		fmt.Fprintf(out, "%d %d\n", count, subs)
		out.Write(id)
	}
	for i := 0; i < subs; i++ {
		var err error
		if b, err = rewriteTreeNode(b, path, false, dirs, out); err != nil {
			return nil, err
		}
	}
	return b, nil
}
