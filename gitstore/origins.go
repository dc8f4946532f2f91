package gitstore

import (
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Origin is the commit that made a file what it is at the tip of a history walk.
type Origin struct {
	Commit  plumbing.Hash
	Author  string // name
	Email   string
	When    time.Time
	Subject string
	// MergedBy is the e-mail of the author of the nearest merge commit that brought Commit
	// in from a side branch (a pull request merged by a reviewer); empty when Commit is on
	// the tip's first-parent line or beyond a merge the walk did not see, and for a merge
	// reflect's sync made (SyncMergeSubject), which no one read.
	MergedBy string
}

// SyncMergeSubject starts the subject of the merge commits reflect's sync makes: a laptop's
// own commits with what arrived, merged without anyone reading it. Such a merge reviews
// nothing it brings in. (Anyone may write the subject: it only ever takes a review away.)
const SyncMergeSubject = "sync: merge "

// Origins walks the history back from tip, newest first, and finds for each path of want the
// commit that gave it the blob want names: a commit whose tree holds that blob at the path
// while none of its parents' does. The walk reads only the files each commit changed (a tree
// diff against its first parent), stops at commits stop reports (the merge base of a sync:
// what lies beyond is already here) and after limit commits; paths it does not place are
// absent from the result.
func (r *Repo) Origins(tip plumbing.Hash, want map[string]plumbing.Hash, stop func(plumbing.Hash) bool, limit int) (map[string]Origin, error) {
	out := map[string]Origin{}
	type visit struct {
		id       plumbing.Hash
		mergedBy string
	}
	queue := []visit{{tip, ""}}
	cloned := false
	seen := map[plumbing.Hash]bool{tip: true}
	for n := 0; len(queue) > 0 && len(out) < len(want) && n < limit; n++ {
		v := queue[0]
		queue = queue[1:]
		if v.id.IsZero() || stop != nil && stop(v.id) {
			continue
		}
		c, err := r.readCommit(v.id)
		if err != nil {
			return out, err
		}
		var parentTree plumbing.Hash
		if len(c.ParentHashes) > 0 {
			if parentTree, err = r.commitTree(c.ParentHashes[0]); err != nil {
				return out, err
			}
		}
		changes, err := r.DiffTrees(parentTree, c.TreeHash, "")
		if err != nil {
			return out, err
		}
		for _, ch := range changes {
			blob, ok := want[ch.Path]
			if _, done := out[ch.Path]; !ok || done || ch.To != blob {
				continue
			}
			fromOther := false // a merge's other parent already had it: it came from there
			var side plumbing.Hash
			for _, p := range c.ParentHashes[1:] {
				pt, err := r.commitTree(p)
				if err != nil {
					return out, err
				}
				if e, ok, err := r.lookup(pt, ch.Path); err != nil {
					return out, err
				} else if ok && e.hash == blob {
					fromOther = true
				} else if ok && e.hash != ch.From {
					side = e.hash
				}
			}
			if !fromOther && !side.IsZero() {
				// a merge that combined two versions of the file (sync's field by field):
				// what it holds of the other side's is that side's writer's, so the version
				// is theirs (the walk goes on for the commit that made the side's)
				if !cloned {
					want, cloned = maps.Clone(want), true // the caller's stays as it was
				}
				want[ch.Path] = side
				continue
			}
			if !fromOther {
				subject, _, _ := strings.Cut(c.Message, "\n")
				out[ch.Path] = Origin{Commit: v.id, Author: c.Author.Name, Email: c.Author.Email, When: c.Author.When,
					Subject: subject, MergedBy: v.mergedBy}
			}
		}
		for i, p := range c.ParentHashes {
			if seen[p] {
				continue
			}
			seen[p] = true
			mb := v.mergedBy
			if i > 0 && !strings.HasPrefix(c.Message, SyncMergeSubject) {
				mb = c.Author.Email
			}
			queue = append(queue, visit{p, mb})
		}
	}
	return out, nil
}

func (r *Repo) readCommit(id plumbing.Hash) (*object.Commit, error) {
	o, err := r.storer.EncodedObject(plumbing.CommitObject, id)
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", id, err)
	}
	var c object.Commit
	if err := c.Decode(o); err != nil {
		return nil, fmt.Errorf("read commit %s: %w", id, err)
	}
	return &c, nil
}

// WalkTree lists the files under dir of an arbitrary tree (Walk is HEAD's), in path order.
func (r *Repo) WalkTree(root plumbing.Hash, dir string) ([]File, error) {
	if root.IsZero() {
		return nil, nil
	}
	return r.walkAt(root, dir)
}

// Identity is the e-mail this repository's commits are made with (settings, then git's
// config, then user@host): who "this user" is when recall weighs who wrote a learning.
func (r *Repo) Identity() string { return r.signature(time.Now()).Email }

// Entry returns the mode of path in tree, and whether it is there (as a file or a directory).
func (r *Repo) Entry(tree plumbing.Hash, path string) (filemode.FileMode, bool, error) {
	if tree.IsZero() {
		return 0, false, nil
	}
	e, ok, err := r.lookup(tree, path)
	return e.mode, ok, err
}
