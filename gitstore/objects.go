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
	"github.com/go-git/go-git/v5/plumbing/object"
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
	// one compressor for the whole process: a new one allocates ~1 MB of state
	var buf bytes.Buffer
	if r.zw == nil {
		r.zw, _ = zlib.NewWriterLevel(&buf, zlib.BestSpeed)
	} else {
		r.zw.Reset(&buf)
	}
	fmt.Fprintf(r.zw, "%s %d\x00", typ, len(data))
	r.zw.Write(data)
	if err := r.zw.Close(); err != nil {
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

// readTree returns the entries of tree id; the zero hash is the empty tree.
func (r *Repo) readTree(id plumbing.Hash) ([]object.TreeEntry, error) {
	if id.IsZero() {
		return nil, nil
	}
	o, err := r.storer.EncodedObject(plumbing.TreeObject, id)
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", id, err)
	}
	var t object.Tree
	if err := t.Decode(o); err != nil {
		return nil, fmt.Errorf("read tree %s: %w", id, err)
	}
	return t.Entries, nil
}

func (r *Repo) readBlob(id plumbing.Hash) ([]byte, error) {
	o, err := r.storer.EncodedObject(plumbing.BlobObject, id)
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", id, err)
	}
	rd, err := o.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	var b bytes.Buffer
	b.Grow(int(o.Size()))
	_, err = b.ReadFrom(rd)
	return b.Bytes(), err
}

// commitTree returns the root tree of commit id (zero for zero).
func (r *Repo) commitTree(id plumbing.Hash) (plumbing.Hash, error) {
	if id.IsZero() {
		return plumbing.ZeroHash, nil
	}
	o, err := r.storer.EncodedObject(plumbing.CommitObject, id)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("read commit %s: %w", id, err)
	}
	var c object.Commit
	if err := c.Decode(o); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("read commit %s: %w", id, err)
	}
	return c.TreeHash, nil
}

// lookup finds path in the tree rooted at root.
func (r *Repo) lookup(root plumbing.Hash, path string) (object.TreeEntry, bool, error) {
	tree := root
	parts := strings.Split(path, "/")
	for i, name := range parts {
		entries, err := r.readTree(tree)
		if err != nil {
			return object.TreeEntry{}, false, err
		}
		k, ok := findEntry(entries, name)
		if !ok {
			return object.TreeEntry{}, false, nil
		}
		e := entries[k]
		if i == len(parts)-1 {
			return e, true, nil
		}
		if e.Mode != filemode.Dir {
			return object.TreeEntry{}, false, nil
		}
		tree = e.Hash
	}
	return object.TreeEntry{}, false, nil
}

func findEntry(entries []object.TreeEntry, name string) (int, bool) {
	for i, e := range entries {
		if e.Name == name {
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
	out := entries[:0:0]
	for _, e := range entries {
		if c, ok := direct[e.Name]; ok {
			delete(direct, e.Name)
			if !c.id.IsZero() {
				out = append(out, object.TreeEntry{Name: e.Name, Mode: c.mode, Hash: c.id})
			}
			continue
		}
		if s, ok := sub[e.Name]; ok {
			delete(sub, e.Name)
			if e.Mode != filemode.Dir {
				return plumbing.ZeroHash, fmt.Errorf("%s is a file, not a directory", e.Name)
			}
			id, err := r.applyTree(e.Hash, s)
			if err != nil {
				return plumbing.ZeroHash, err
			}
			if !id.IsZero() {
				out = append(out, object.TreeEntry{Name: e.Name, Mode: filemode.Dir, Hash: id})
			}
			continue
		}
		out = append(out, e)
	}
	for name, c := range direct {
		if !c.id.IsZero() {
			out = append(out, object.TreeEntry{Name: name, Mode: c.mode, Hash: c.id})
		}
	}
	for name, s := range sub {
		id, err := r.applyTree(plumbing.ZeroHash, s)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if !id.IsZero() {
			out = append(out, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: id})
		}
	}
	if len(out) == 0 {
		return plumbing.ZeroHash, nil
	}
	sort.Slice(out, func(i, j int) bool { return treeSortKey(out[i]) < treeSortKey(out[j]) })
	return r.writeObject(plumbing.TreeObject, encodeTree(out))
}

// treeSortKey orders entries as git does: a directory sorts as if its name ended in "/".
func treeSortKey(e object.TreeEntry) string {
	if e.Mode == filemode.Dir {
		return e.Name + "/"
	}
	return e.Name
}

func encodeTree(entries []object.TreeEntry) []byte {
	var b bytes.Buffer
	for _, e := range entries {
		fmt.Fprintf(&b, "%o %s\x00", uint32(e.Mode), e.Name)
		b.Write(e.Hash[:])
	}
	return b.Bytes()
}

// emptyTree is git's well-known empty tree id, used as the tree of an empty root.
var emptyTree = hashObject(plumbing.TreeObject, nil)
