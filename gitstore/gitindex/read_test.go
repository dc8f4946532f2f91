package gitindex

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// rawIndex is an index file: header, the entries' bytes as given, extensions, trailer.
func rawIndex(version, count uint32, entries []byte, exts ...[]byte) []byte {
	var b bytes.Buffer
	b.WriteString("DIRC")
	binary.Write(&b, binary.BigEndian, version)
	binary.Write(&b, binary.BigEndian, count)
	b.Write(entries)
	for _, x := range exts {
		b.Write(x)
	}
	b.Write(make([]byte, 20))
	return b.Bytes()
}

func ext(sig string, body []byte) []byte {
	b := append([]byte(sig), 0, 0, 0, 0)
	binary.BigEndian.PutUint32(b[4:], uint32(len(body)))
	return append(b, body...)
}

// rawEWAH is a bitmap of the given words, its last marker at 0.
func rawEWAH(bits uint32, words ...uint64) []byte {
	b := binary.BigEndian.AppendUint32(nil, bits)
	b = binary.BigEndian.AppendUint32(b, uint32(len(words)))
	for _, w := range words {
		b = binary.BigEndian.AppendUint64(b, w)
	}
	return binary.BigEndian.AppendUint32(b, 0)
}

// onesRun is a marker word for a run of n words of ones.
func onesRun(n uint64) uint64 { return n<<1 | 1 }

func link(del, repl []byte) []byte {
	return ext("link", append(append(make([]byte, 20), del...), repl...))
}

// allocated is how many bytes fn allocates.
func allocated(fn func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	fn()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// TestReadRefusesHostileSizes: a count or a bitmap that claims more than its bytes can hold
// is refused before anything is sized by it.
func TestReadRefusesHostileSizes(t *testing.T) {
	entry := (&File{entries: []Entry{{name: "a"}}}).encode()
	entry = entry[12 : len(entry)-20] // one entry's bytes
	cases := []struct {
		name, err string
		data      []byte
	}{
		{"2^31 entries", "2147483648 entries in 96 bytes", rawIndex(2, 1<<31, entry)},
		{"2^32-1 entries", "4294967295 entries", rawIndex(4, 1<<32-1, nil)},
		{"2^32 replacements for one entry", "more replacements than entries",
			rawIndex(2, 1, entry, link(rawEWAH(0), rawEWAH(0, onesRun(1<<26))))},
		{"a bitmap longer than its bytes", "malformed ewah bitmap",
			rawIndex(2, 1, entry, link(rawEWAH(0, 0)[:8], nil))},
		{"literal words past the end", "malformed ewah bitmap",
			rawIndex(2, 1, entry, link(rawEWAH(0, 5<<33), rawEWAH(0)))},
		{"a position past 2^32", "malformed ewah bitmap",
			rawIndex(2, 1, entry, link(rawEWAH(0, (1<<32-1)<<1|1<<33, 1), rawEWAH(0)))},
		{"an extension past the end", "overruns the file",
			rawIndex(2, 1, entry, ext("TREE", nil)[:4], []byte{0xff, 0xff, 0xff, 0xff})},
		{"v4 strips more than the name", "malformed git index",
			rawIndex(4, 1, append(make([]byte, entryFixed), 0x7f, 'a', 0))},
		{"unknown required extension", "which reflect cannot keep",
			rawIndex(2, 1, entry, ext("sdir", nil))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var err error
			n := allocated(func() { _, err = parse(c.data) })
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("parse: %v, want an error with %q", err, c.err)
			}
			if n > 64<<10 {
				t.Fatalf("parse allocated %d bytes for %d of input", n, len(c.data))
			}
		})
	}

	// a delete bitmap is bounded by the shared index it indexes, read only when needed
	dir := t.TempDir()
	shared := (&File{entries: []Entry{{name: "a"}, {name: "b"}}}).encode()
	var id plumbing.Hash
	copy(id[:], shared[len(shared)-20:])
	if err := os.WriteFile(filepath.Join(dir, "sharedindex."+id.String()), shared, 0o644); err != nil {
		t.Fatal(err)
	}
	front := rawIndex(2, 0, nil, ext("link", append(append(id[:], rawEWAH(0, onesRun(1<<26))...), rawEWAH(0)...)))
	if err := os.WriteFile(filepath.Join(dir, "index"), front, 0o644); err != nil {
		t.Fatal(err)
	}
	var err error
	n := allocated(func() {
		var ix *File
		if ix, err = Read(dir); err != nil {
			t.Fatal(err)
		}
		err = ix.Lookup([]string{"a"}, func(string) bool { return true }, func(string, plumbing.Hash, int) error { return nil })
	})
	if err == nil || !strings.Contains(err.Error(), "more deletions than entries") {
		t.Fatalf("Lookup: %v, want more deletions than entries", err)
	}
	if n > 64<<10 {
		t.Fatalf("Read and Lookup allocated %d bytes", n)
	}
}

// FuzzReadGitIndex: whatever the bytes, reading never panics nor sizes anything by a count
// it has not checked (TestReadRefusesHostileSizes measures that), and an index it reads
// writes back to one that reads the same.
func FuzzReadGitIndex(f *testing.F) {
	for _, c := range []struct {
		version               int
		split, skip, conflict bool
	}{{2, false, false, false}, {3, true, true, false}, {4, false, false, true}, {4, true, false, false}} {
		dir := gitRepo(f, 30, c.version, c.split, c.skip, c.conflict)
		data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	entry := (&File{entries: []Entry{{name: "a/b"}}}).encode()
	f.Add(entry)
	f.Add(rawIndex(2, 1<<31, entry[12:len(entry)-20]))
	f.Add(rawIndex(2, 1, entry[12:len(entry)-20], link(rawEWAH(64, onesRun(1)), rawEWAH(1, 1<<33, 1))))
	f.Fuzz(func(t *testing.T, data []byte) {
		ix, err := parse(data)
		if err != nil {
			return
		}
		for i := range ix.entries {
			if strings.IndexByte(ix.entries[i].name, 0) >= 0 {
				return // git's names have no NUL; a long one would not read back
			}
		}
		again, err := parse(ix.encode())
		if err != nil {
			t.Fatalf("written back: %v", err)
		}
		if len(again.entries) != len(ix.entries) {
			t.Fatalf("written back: %d entries, read %d", len(again.entries), len(ix.entries))
		}
		for i := range ix.entries {
			if again.entries[i] != ix.entries[i] {
				t.Fatalf("entry %d written back as %+v, read %+v", i, again.entries[i], ix.entries[i])
			}
		}
		if ix.link == nil {
			// a flat index is updated without reading anything else: the cache-tree too
			e := Entry{name: "x/y"}
			if _, err := ix.Update(map[string]*Entry{"x/y": &e, "a/b": nil}, func(string) bool { return true }, Options{}); err != nil {
				t.Fatalf("Update: %v", err)
			}
		}
	})
}
