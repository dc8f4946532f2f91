package team

import (
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// A promotion's commit is made beside the team's main, never on it: no work-tree file, no
// index entry and no branch of the clone but its own reflect/promote/… ref changes, so
// main stays what the remote's reviewers merged.

// putBlob stores data as a blob.
func putBlob(s storer.EncodedObjectStorer, data []byte) (plumbing.Hash, error) {
	o := s.NewEncodedObject()
	o.SetType(plumbing.BlobObject)
	w, err := o.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := w.Write(data); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := w.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	return s.SetEncodedObject(o)
}

// putFile returns the id of root's tree (zero: empty) with the regular file at path set to
// blob, storing only the trees along the path.
func putFile(s storer.EncodedObjectStorer, root plumbing.Hash, path string, blob plumbing.Hash) (plumbing.Hash, error) {
	var entries []object.TreeEntry
	if !root.IsZero() {
		t, err := object.GetTree(s, root)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entries = append(entries, t.Entries...)
	}
	name, rest, deeper := strings.Cut(path, "/")
	at := -1
	for i, e := range entries {
		if e.Name == name {
			at = i
		}
	}
	entry := object.TreeEntry{Name: name, Mode: filemode.Regular, Hash: blob}
	if deeper {
		sub := plumbing.ZeroHash
		if at >= 0 && entries[at].Mode == filemode.Dir {
			sub = entries[at].Hash
		}
		h, err := putFile(s, sub, rest, blob)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entry = object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h}
	}
	if at >= 0 {
		entries[at] = entry
	} else {
		entries = append(entries, entry)
	}
	// git's order: a tree sorts as if its name ended in '/'
	key := func(e object.TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	sort.Slice(entries, func(i, j int) bool { return key(entries[i]) < key(entries[j]) })
	o := s.NewEncodedObject()
	if err := (&object.Tree{Entries: entries}).Encode(o); err != nil {
		return plumbing.ZeroHash, err
	}
	return s.SetEncodedObject(o)
}

// putCommit stores a commit of tree on parent.
func putCommit(s storer.EncodedObjectStorer, tree, parent plumbing.Hash, sig object.Signature, msg string) (plumbing.Hash, error) {
	c := &object.Commit{Author: sig, Committer: sig, Message: msg, TreeHash: tree}
	if !parent.IsZero() {
		c.ParentHashes = []plumbing.Hash{parent}
	}
	o := s.NewEncodedObject()
	if err := c.Encode(o); err != nil {
		return plumbing.ZeroHash, err
	}
	return s.SetEncodedObject(o)
}
