package gitstore

import (
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// A Change is one file that differs between two trees. From is zero for an added file,
// To is zero for a deleted one. Mode is the file's mode in the second tree (zero when it
// was deleted): regular, executable, or — only in a tree reflect did not write — a symlink
// or a gitlink.
type Change struct {
	Path     string
	From, To plumbing.Hash
	Mode     filemode.FileMode
}

// TreeOf returns the id of dir's tree in commit (zero when dir does not exist there, or
// when commit is zero). Two equal tree ids mean nothing under dir changed, whatever else
// the commits between them did: the cheap test the index makes before it catches up.
func (r *Repo) TreeOf(commit plumbing.Hash, dir string) (plumbing.Hash, error) {
	if commit.IsZero() {
		return plumbing.ZeroHash, nil
	}
	root, err := r.commitTree(commit)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	dir = strings.Trim(dir, "/")
	if dir == "" {
		return root, nil
	}
	e, ok, err := r.lookup(root, dir)
	if err != nil || !ok || !e.isDir() {
		return plumbing.ZeroHash, err
	}
	return e.hash, nil
}

// DiffTrees lists the files that differ between two trees (either may be zero, for an
// empty tree), each path prefixed with prefix. Subtrees with equal ids are skipped
// without being read, so the cost follows the size of the change, not of the trees.
func (r *Repo) DiffTrees(from, to plumbing.Hash, prefix string) ([]Change, error) {
	var out []Change
	err := r.diffTrees(from, to, strings.Trim(prefix, "/"), &out)
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, err
}

func (r *Repo) diffTrees(from, to plumbing.Hash, prefix string, out *[]Change) error {
	if from == to {
		return nil
	}
	a, err := r.treeOrEmpty(from)
	if err != nil {
		return err
	}
	b, err := r.treeOrEmpty(to)
	if err != nil {
		return err
	}
	join := func(name string) string {
		if prefix == "" {
			return name
		}
		return prefix + "/" + name
	}
	// side emits every file under one entry that exists on one side only (or changed kind).
	side := func(e treeEntry, added bool) error {
		if !e.isDir() {
			c := Change{Path: join(e.name)}
			if added {
				c.To, c.Mode = e.hash, e.mode
			} else {
				c.From = e.hash
			}
			*out = append(*out, c)
			return nil
		}
		if added {
			return r.diffTrees(plumbing.ZeroHash, e.hash, join(e.name), out)
		}
		return r.diffTrees(e.hash, plumbing.ZeroHash, join(e.name), out)
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && a[i].name < b[j].name:
			if err := side(a[i], false); err != nil {
				return err
			}
			i++
		case i == len(a) || b[j].name < a[i].name:
			if err := side(b[j], true); err != nil {
				return err
			}
			j++
		default:
			x, y := a[i], b[j]
			i++
			j++
			switch {
			case x.hash == y.hash && x.mode == y.mode:
			case x.isDir() && y.isDir():
				if err := r.diffTrees(x.hash, y.hash, join(x.name), out); err != nil {
					return err
				}
			case !x.isDir() && !y.isDir():
				*out = append(*out, Change{Path: join(x.name), From: x.hash, To: y.hash, Mode: y.mode})
			default:
				if err := side(x, false); err != nil {
					return err
				}
				if err := side(y, true); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (r *Repo) treeOrEmpty(id plumbing.Hash) ([]treeEntry, error) {
	if id.IsZero() {
		return nil, nil
	}
	entries, err := r.readTree(id)
	if err != nil {
		return nil, err
	}
	// merge by name: git's order puts "a" (dir, as "a/") after "a.b"; a plain name sort
	// makes the two sides line up.
	sorted := append([]treeEntry(nil), entries...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].name < sorted[j].name })
	return sorted, nil
}
