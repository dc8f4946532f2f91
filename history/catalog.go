package history

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
	"time"
)

// catalog is the part of the state a search reads: every session and stream of the archive,
// by key. It is kept in catalog.bin, written by each import, whose records a search looks up
// where they lie (a binary search of a sorted table) as its hits name them, rather than
// decoding them all: a rare needle's hits are in a few sessions. Decoding every record of
// 2,000 sessions (an 887 KB gob) took 1.5–3 ms of a 20 ms search, on its critical path (the
// index opened in 0.2 ms beside it).
type catalog struct {
	Generation int
	// Sessions and Streams hold what was looked up (nil for a key the catalog lacks), or
	// everything, for a catalog built in memory.
	Sessions map[string]*Session
	Streams  map[string]*Stream
	raw      *catalogFile // the records not yet looked up; nil when built in memory
}

// stream is the stream name, nil when the catalog has none of that name.
func (c *catalog) stream(name string) *Stream {
	if c.raw == nil {
		return c.Streams[name]
	}
	return remembered(c.Streams, name, c.raw.stream)
}

// session is the session key, nil when the catalog has none.
func (c *catalog) session(key string) *Session {
	if c.raw == nil {
		return c.Sessions[key]
	}
	return remembered(c.Sessions, key, c.raw.session)
}

// remembered is m's record of key, looked up in the file (find) the first time and kept,
// absent ones (nil) too.
func remembered[T any](m map[string]*T, key string, find func(string) *T) *T {
	if v, ok := m[key]; ok {
		return v
	}
	v := find(key)
	m[key] = v
	return v
}

// catalogMagic starts catalog.bin; the last byte is the format's version.
var catalogMagic = []byte("RFLXCAT\x01")

// The layout of catalog.bin (integers little-endian):
//
//	magic (8 bytes), generation (uint64), streams n (uint32), sessions n (uint32)
//	streams' table, then sessions' table: n entries of key offset, key length, record
//	offset, record length (uint32 each), sorted by key
//	the heap: keys and records
//
// A record is a sequence of fields, each a uvarint (a string's length, then its bytes).
const catalogHead = 8 + 8 + 4 + 4

// encodeCatalog writes st's sessions and streams, without what a search does not read (the
// first prompts, the transcripts' paths and sizes).
func encodeCatalog(st *state) []byte {
	var heap bytes.Buffer
	type entry struct {
		key          string
		keyAt, recAt int
		recLen       int
	}
	put := func(b *bytes.Buffer, v uint64) { b.Write(binary.AppendUvarint(nil, v)) }
	str := func(b *bytes.Buffer, s string) { put(b, uint64(len(s))); b.WriteString(s) }
	table := func(keys []string, record func(b *bytes.Buffer, key string)) []entry {
		slices.Sort(keys)
		out := make([]entry, len(keys))
		for i, k := range keys {
			e := entry{key: k, keyAt: heap.Len()}
			heap.WriteString(k)
			e.recAt = heap.Len()
			record(&heap, k)
			e.recLen = heap.Len() - e.recAt
			out[i] = e
		}
		return out
	}
	streams := table(mapKeys(st.Streams), func(b *bytes.Buffer, k string) {
		s := st.Streams[k]
		str(b, s.Name)
		str(b, s.Session)
		str(b, s.Agent)
		put(b, uint64(max(0, s.Messages)))
	})
	sessions := table(mapKeys(st.Sessions), func(b *bytes.Buffer, k string) {
		s := st.Sessions[k]
		for _, f := range []string{s.Key, s.Harness, s.ID, s.Project, s.CWD, s.Branch} {
			str(b, f)
		}
		for _, t := range []time.Time{s.Started, s.Updated} {
			b.Write(binary.AppendVarint(nil, t.UnixNano()))
			_, off := t.Zone()
			b.Write(binary.AppendVarint(nil, int64(off)))
		}
		put(b, uint64(max(0, s.Messages)))
		put(b, uint64(len(s.Streams)))
		for _, x := range s.Streams {
			str(b, x)
		}
	})
	base := catalogHead + 16*(len(streams)+len(sessions))
	out := make([]byte, 0, base+heap.Len())
	out = append(out, catalogMagic...)
	out = binary.LittleEndian.AppendUint64(out, uint64(st.Generation))
	out = binary.LittleEndian.AppendUint32(out, uint32(len(streams)))
	out = binary.LittleEndian.AppendUint32(out, uint32(len(sessions)))
	for _, e := range append(streams, sessions...) {
		for _, v := range []int{base + e.keyAt, len(e.key), base + e.recAt, e.recLen} {
			out = binary.LittleEndian.AppendUint32(out, uint32(v))
		}
	}
	return append(out, heap.Bytes()...)
}

func mapKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

// catalogFile is catalog.bin read into memory, its records decoded on demand.
type catalogFile struct {
	data                []byte
	nStreams, nSessions int
}

// errCatalog is a catalog.bin that is not one (cut short, another format): the next import
// rewrites it.
var errCatalog = errors.New("not a catalog of this version")

// openCatalog checks data's head and tables.
func openCatalog(data []byte) (*catalog, error) {
	if len(data) < catalogHead || !bytes.Equal(data[:8], catalogMagic) {
		return nil, errCatalog
	}
	f := &catalogFile{data: data,
		nStreams:  int(binary.LittleEndian.Uint32(data[16:])),
		nSessions: int(binary.LittleEndian.Uint32(data[20:]))}
	if uint64(f.nStreams)+uint64(f.nSessions) > uint64(len(data)-catalogHead)/16 {
		return nil, errCatalog
	}
	for i := range f.nStreams + f.nSessions {
		keyAt, keyLen, recAt, recLen := f.entry(i)
		if keyAt+keyLen > len(data) || recAt+recLen > len(data) {
			return nil, errCatalog
		}
	}
	return &catalog{Generation: int(binary.LittleEndian.Uint64(data[8:])), raw: f,
		Sessions: map[string]*Session{}, Streams: map[string]*Stream{}}, nil
}

// entry is the i-th entry of the tables (the streams', then the sessions').
func (f *catalogFile) entry(i int) (keyAt, keyLen, recAt, recLen int) {
	e := f.data[catalogHead+16*i:]
	u := func(k int) int { return int(binary.LittleEndian.Uint32(e[4*k:])) }
	return u(0), u(1), u(2), u(3)
}

// find is the record of key in the table of n entries from first, by binary search.
func (f *catalogFile) find(first, n int, key string) ([]byte, bool) {
	lo, hi := 0, n
	for lo < hi {
		mid := lo + (hi-lo)/2
		keyAt, keyLen, recAt, recLen := f.entry(first + mid)
		switch c := bytes.Compare(f.data[keyAt:keyAt+keyLen], []byte(key)); {
		case c == 0:
			return f.data[recAt : recAt+recLen], true
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return nil, false
}

// fields reads a record's fields in order; a record that ends early gives zeros, and ok
// says whether every field was there.
type fields struct {
	b  []byte
	ok bool
}

func (r *fields) uint() uint64 { return next(r, binary.Uvarint) }
func (r *fields) int() int64   { return next(r, binary.Varint) }

// next reads one varint field with read.
func next[T uint64 | int64](r *fields, read func([]byte) (T, int)) T {
	v, n := read(r.b)
	if n <= 0 {
		r.ok, r.b = false, nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *fields) str() string {
	n := r.uint()
	if n > uint64(len(r.b)) {
		r.ok, r.b = false, nil
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func (r *fields) time() time.Time {
	ns, off := r.int(), r.int()
	if off < -18*3600 || off > 18*3600 {
		r.ok = false
		return time.Time{}
	}
	return time.Unix(0, ns).In(time.FixedZone("", int(off)))
}

// stream is the record of the stream name; nil when there is none, or it does not read whole.
func (f *catalogFile) stream(name string) *Stream {
	rec, ok := f.find(0, f.nStreams, name)
	if !ok {
		return nil
	}
	r := &fields{b: rec, ok: true}
	s := &Stream{Name: r.str(), Session: r.str(), Agent: r.str(), Messages: int(min(r.uint(), 1<<40))}
	if !r.ok {
		return nil
	}
	return s
}

// session is the record of the session key; nil when there is none, or it does not read whole.
func (f *catalogFile) session(key string) *Session {
	rec, ok := f.find(f.nStreams, f.nSessions, key)
	if !ok {
		return nil
	}
	r := &fields{b: rec, ok: true}
	s := &Session{Key: r.str(), Harness: r.str(), ID: r.str(), Project: r.str(), CWD: r.str(), Branch: r.str()}
	s.Started, s.Updated = r.time(), r.time()
	s.Messages = int(min(r.uint(), 1<<40))
	n := r.uint()
	for i := uint64(0); i < n && r.ok; i++ {
		s.Streams = append(s.Streams, r.str())
	}
	if !r.ok {
		return nil
	}
	return s
}

// catalogFromState is the catalog of st, its maps themselves (an archive written before
// catalog.bin, until its next import writes one).
func catalogFromState(st *state) *catalog {
	return &catalog{Generation: st.Generation, Sessions: st.Sessions, Streams: st.Streams}
}
