package gitstore

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// A project's folder of learnings is one tree object with an entry per learning (~1,000 at
// 50,000 learnings in 50 projects). Decoding it through go-git, re-sorting it with string
// concatenation and encoding it with fmt cost 3.6 ms a capture at that size; this codec,
// a per-process cache of decoded trees and a merge of the few new entries keep it under 1 ms.

type treeEntry struct {
	name string
	mode filemode.FileMode
	hash plumbing.Hash
}

func (e treeEntry) isDir() bool { return e.mode == filemode.Dir }

// treeLess orders entries as git does: a directory sorts as if its name ended in "/".
func treeLess(a, b treeEntry) bool {
	an, bn := a.name, b.name
	n := min(len(an), len(bn))
	if c := bytesCompare(an[:n], bn[:n]); c != 0 {
		return c < 0
	}
	return tail(an, n, a.isDir()) < tail(bn, n, b.isDir())
}

func bytesCompare(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// tail is the byte after the common prefix: the next name byte, "/" for a directory that
// ends there, or 0 for a file that ends there.
func tail(name string, n int, dir bool) int {
	if n < len(name) {
		return int(name[n])
	}
	if dir {
		return '/'
	}
	return 0
}

func parseTree(data []byte) ([]treeEntry, error) {
	out := make([]treeEntry, 0, len(data)/48)
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		if sp < 0 {
			return nil, errors.New("malformed tree")
		}
		mode, err := strconv.ParseUint(string(data[:sp]), 8, 32)
		if err != nil {
			return nil, fmt.Errorf("malformed tree mode: %w", err)
		}
		data = data[sp+1:]
		nul := bytes.IndexByte(data, 0)
		if nul < 0 || len(data) < nul+21 {
			return nil, errors.New("malformed tree")
		}
		e := treeEntry{name: string(data[:nul]), mode: filemode.FileMode(mode)}
		copy(e.hash[:], data[nul+1:nul+21])
		out = append(out, e)
		data = data[nul+21:]
	}
	return out, nil
}

func encodeTree(entries []treeEntry) []byte {
	size := 0
	for _, e := range entries {
		size += 8 + len(e.name) + 21
	}
	b := make([]byte, 0, size)
	for _, e := range entries {
		b = strconv.AppendUint(b, uint64(e.mode), 8)
		b = append(b, ' ')
		b = append(b, e.name...)
		b = append(b, 0)
		b = append(b, e.hash[:]...)
	}
	return b
}

// readTree returns the entries of tree id (the zero id is the empty tree). Decoded trees are
// cached for the life of the Repo: a tree id never changes meaning.
func (r *Repo) readTree(id plumbing.Hash) ([]treeEntry, error) {
	if id.IsZero() {
		return nil, nil
	}
	if t, ok := r.trees[id]; ok {
		return t, nil
	}
	data, err := r.readObject(plumbing.TreeObject, id)
	if err != nil {
		return nil, err
	}
	t, err := parseTree(data)
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", id, err)
	}
	r.cacheTree(id, t)
	return t, nil
}

// maxCachedEntries bounds the decoded trees a Repo keeps: ~50 MB of entries. A capture
// caches the few trees on its path; a walk over history (Origins, at a 100,000-learning
// folder) decodes a new version of the big folder at every commit, and without a bound
// held one per commit: 2.4 GB after a few hundred commits.
var maxCachedEntries = 500_000 // tests lower it

// cacheTree keeps tree id's entries, first dropping every cached tree when the cache is full.
func (r *Repo) cacheTree(id plumbing.Hash, t []treeEntry) {
	if r.trees == nil || r.treeSize+len(t) > maxCachedEntries {
		r.trees, r.treeSize = map[plumbing.Hash][]treeEntry{}, 0
	}
	r.trees[id] = t
	r.treeSize += len(t)
}

// readObject returns the content of an object: a loose one is read directly, anything else
// (packs, alternates) through go-git.
func (r *Repo) readObject(typ plumbing.ObjectType, id plumbing.Hash) ([]byte, error) {
	hex := id.String()
	raw, err := os.ReadFile(filepath.Join(r.gitDir, "objects", hex[:2], hex[2:]))
	if err == nil {
		return r.inflateLoose(typ, id, raw)
	}
	o, err := r.storer.EncodedObject(typ, id)
	if err != nil {
		return nil, fmt.Errorf("read %s %s: %w", typ, id, err)
	}
	rd, err := o.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	data := make([]byte, 0, o.Size())
	return readAll(rd, data)
}

func readAll(rd io.Reader, buf []byte) ([]byte, error) {
	b := bytes.NewBuffer(buf)
	_, err := b.ReadFrom(rd)
	return b.Bytes(), err
}

func (r *Repo) inflateLoose(typ plumbing.ObjectType, id plumbing.Hash, raw []byte) ([]byte, error) {
	var err error
	if r.zr == nil {
		r.zr, err = zlib.NewReader(bytes.NewReader(raw))
	} else {
		err = r.zr.(zlib.Resetter).Reset(bytes.NewReader(raw), nil)
	}
	if err != nil {
		return nil, fmt.Errorf("read object %s: %w", id, err)
	}
	data, err := readAll(r.zr, make([]byte, 0, len(raw)*3))
	if err != nil {
		return nil, fmt.Errorf("read object %s: %w", id, err)
	}
	nul := bytes.IndexByte(data, 0)
	if nul < 0 {
		return nil, fmt.Errorf("read object %s: no header", id)
	}
	hdr := string(data[:nul])
	want := typ.String() + " "
	if len(hdr) < len(want) || hdr[:len(want)] != want {
		return nil, fmt.Errorf("read object %s: is %q, want a %s", id, hdr, typ)
	}
	return data[nul+1:], nil
}

// mergeTree returns entries (sorted) with the sorted additions merged in.
func mergeTree(entries, added []treeEntry) []treeEntry {
	if len(added) == 0 {
		return entries
	}
	sort.Slice(added, func(i, j int) bool { return treeLess(added[i], added[j]) })
	out := make([]treeEntry, 0, len(entries)+len(added))
	i, j := 0, 0
	for i < len(entries) && j < len(added) {
		if treeLess(added[j], entries[i]) {
			out = append(out, added[j])
			j++
		} else {
			out = append(out, entries[i])
			i++
		}
	}
	out = append(out, entries[i:]...)
	return append(out, added[j:]...)
}
