package gitstore

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// hashObject returns git's id of an object of type typ holding data.
func hashObject(typ plumbing.ObjectType, data []byte) plumbing.Hash {
	h := sha1.New()
	h.Write([]byte(typ.String()))
	h.Write([]byte{' '})
	h.Write([]byte(strconv.Itoa(len(data))))
	h.Write([]byte{0})
	h.Write(data)
	var out plumbing.Hash
	copy(out[:], h.Sum(nil))
	return out
}

// writeObject stores a loose object (zlib level 1, as git's core.looseCompression default)
// through a temporary file and a rename, so a reader never sees a partial object.
func (r *Repo) writeObject(typ plumbing.ObjectType, data []byte) (plumbing.Hash, error) {
	id := hashObject(typ, data)
	hex := id.String()
	dir := filepath.Join(r.gitDir, "objects", hex[:2])
	final := filepath.Join(dir, hex[2:])
	if _, err := os.Lstat(final); err == nil {
		return id, nil
	}
	// One compressor per level for the whole process (a new one allocates ~1 MB). Objects
	// over 16 KB — in practice the tree of a project with hundreds of learnings, rewritten by
	// every capture in it — are stored uncompressed: 32 µs instead of 446 µs for a 60 KB tree,
	// as git's core.looseCompression allows; packing reclaims the space.
	level := 0
	if len(data) < 16<<10 {
		level = 1
	}
	var buf bytes.Buffer
	if r.zw[level] == nil {
		r.zw[level], _ = zlib.NewWriterLevel(&buf, level)
	} else {
		r.zw[level].Reset(&buf)
	}
	zw := r.zw[level]
	fmt.Fprintf(zw, "%s %d\x00", typ, len(data))
	zw.Write(data)
	if err := zw.Close(); err != nil {
		return id, err
	}
	if _, err := os.Stat(dir); err != nil {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return id, fmt.Errorf("write object: %w", err)
		}
	}
	if err := r.writeAtomic(final, buf.Bytes(), 0o444); err != nil {
		return id, fmt.Errorf("write object %s: %w", hex, err)
	}
	return id, nil
}

func (r *Repo) readBlob(id plumbing.Hash) ([]byte, error) {
	return r.readObject(plumbing.BlobObject, id)
}

// commitTree returns the root tree of commit id (zero for zero).
func (r *Repo) commitTree(id plumbing.Hash) (plumbing.Hash, error) {
	if id.IsZero() {
		return plumbing.ZeroHash, nil
	}
	c, err := r.readCommit(id)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return c.TreeHash, nil
}

// lookup finds path in the tree rooted at root.
func (r *Repo) lookup(root plumbing.Hash, path string) (treeEntry, bool, error) {
	tree := root
	parts := strings.Split(path, "/")
	for i, name := range parts {
		entries, err := r.readTree(tree)
		if err != nil {
			return treeEntry{}, false, err
		}
		k, ok := findEntry(entries, name)
		if !ok {
			return treeEntry{}, false, nil
		}
		e := entries[k]
		if i == len(parts)-1 {
			return e, true, nil
		}
		if !e.isDir() {
			return treeEntry{}, false, nil
		}
		tree = e.hash
	}
	return treeEntry{}, false, nil
}

// findEntry finds name in sorted entries: it may sort as a file or as a directory.
func findEntry(entries []treeEntry, name string) (int, bool) {
	for _, dir := range []bool{false, true} {
		key := treeEntry{name: name}
		if dir {
			key.mode = filemode.Dir
		}
		i := sort.Search(len(entries), func(i int) bool { return !treeLess(entries[i], key) })
		if i < len(entries) && entries[i].name == name {
			return i, true
		}
	}
	return 0, false
}

// blobChange is a file's new content (id set, data written already) or its deletion (zero id).
type blobChange struct {
	id   plumbing.Hash
	mode filemode.FileMode
}

// applyTree writes the tree that results from applying changes (paths relative to this tree)
// to tree base, and returns its id; zero when the result is empty. Only trees on a changed
// path are read and written.
func (r *Repo) applyTree(base plumbing.Hash, changes map[string]blobChange) (plumbing.Hash, error) {
	entries, err := r.readTree(base)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	direct := map[string]blobChange{}
	sub := map[string]map[string]blobChange{}
	for p, c := range changes {
		if dir, rest, ok := strings.Cut(p, "/"); ok {
			if sub[dir] == nil {
				sub[dir] = map[string]blobChange{}
			}
			sub[dir][rest] = c
		} else {
			direct[p] = c
		}
	}
	out := make([]treeEntry, 0, len(entries)+len(changes))
	for _, e := range entries {
		if c, ok := direct[e.name]; ok && !e.isDir() {
			delete(direct, e.name)
			if !c.id.IsZero() {
				out = append(out, treeEntry{name: e.name, mode: c.mode, hash: c.id})
			}
			continue
		}
		if s, ok := sub[e.name]; ok && e.isDir() {
			delete(sub, e.name)
			id, err := r.applyTree(e.hash, s)
			if err != nil {
				return plumbing.ZeroHash, err
			}
			if !id.IsZero() {
				out = append(out, treeEntry{name: e.name, mode: filemode.Dir, hash: id})
			}
			continue
		}
		if _, ok := direct[e.name]; ok {
			return plumbing.ZeroHash, fmt.Errorf("%s is a directory, not a file", e.name)
		}
		if _, ok := sub[e.name]; ok {
			return plumbing.ZeroHash, fmt.Errorf("%s is a file, not a directory", e.name)
		}
		out = append(out, e)
	}
	var added []treeEntry
	for name, c := range direct {
		if !c.id.IsZero() {
			added = append(added, treeEntry{name: name, mode: c.mode, hash: c.id})
		}
	}
	for name, s := range sub {
		id, err := r.applyTree(plumbing.ZeroHash, s)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if !id.IsZero() {
			added = append(added, treeEntry{name: name, mode: filemode.Dir, hash: id})
		}
	}
	out = mergeTree(out, added)
	if len(out) == 0 {
		return plumbing.ZeroHash, nil
	}
	id, err := r.writeObject(plumbing.TreeObject, encodeTree(out))
	if err == nil {
		r.cacheTree(id, out)
	}
	return id, err
}
