package gitstore

import (
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// Commit is one commit as a history view shows it.
type Commit struct {
	ID      plumbing.Hash
	Parents []plumbing.Hash
	Author  string // name
	Email   string
	When    time.Time
	Subject string
	Body    string // the message after the subject line, trimmed
}

// Revision is a commit that changed one file: the file's blob before (zero: the commit
// added it) and after (zero: the commit removed it), against the commit's first parent.
type Revision struct {
	Commit
	Before, After plumbing.Hash
}

// Log walks the history back from tip, newest first by the order of a breadth-first walk
// over all parents, and returns at most limit commits.
func (r *Repo) Log(tip plumbing.Hash, limit int) ([]Commit, error) {
	var out []Commit
	err := r.walkCommits(tip, limit, func(c Commit) (bool, error) {
		out = append(out, c)
		return true, nil
	})
	return out, err
}

// FileLog returns the commits, newest first, that changed path, reading at most limit
// commits back from tip: a commit whose first parent held another blob (or none) at path.
// A merge that took the file from its other parent lists as a change too, as `git log
// --first-parent` would.
func (r *Repo) FileLog(tip plumbing.Hash, path string, limit int) ([]Revision, error) {
	var out []Revision
	err := r.walkCommits(tip, limit, func(c Commit) (bool, error) {
		tree, err := r.commitTree(c.ID)
		if err != nil {
			return false, err
		}
		after, err := r.blobAt(tree, path)
		if err != nil {
			return false, err
		}
		var before plumbing.Hash
		if len(c.Parents) > 0 {
			pt, err := r.commitTree(c.Parents[0])
			if err != nil {
				return false, err
			}
			if before, err = r.blobAt(pt, path); err != nil {
				return false, err
			}
		}
		if before != after {
			out = append(out, Revision{Commit: c, Before: before, After: after})
		}
		return true, nil
	})
	return out, err
}

func (r *Repo) blobAt(tree plumbing.Hash, path string) (plumbing.Hash, error) {
	if tree.IsZero() {
		return plumbing.ZeroHash, nil
	}
	e, ok, err := r.lookup(tree, path)
	if err != nil || !ok || e.isDir() {
		return plumbing.ZeroHash, err
	}
	return e.hash, nil
}

// walkCommits visits the commits reachable from tip, breadth first, at most limit, until fn
// says stop.
func (r *Repo) walkCommits(tip plumbing.Hash, limit int, fn func(Commit) (bool, error)) error {
	if tip.IsZero() {
		return nil
	}
	queue := []plumbing.Hash{tip}
	seen := map[plumbing.Hash]bool{tip: true}
	for n := 0; len(queue) > 0 && n < limit; n++ {
		id := queue[0]
		queue = queue[1:]
		c, err := r.readCommit(id)
		if err != nil {
			return err
		}
		subject, body, _ := strings.Cut(c.Message, "\n")
		more, err := fn(Commit{ID: id, Parents: c.ParentHashes, Author: c.Author.Name, Email: c.Author.Email,
			When: c.Author.When, Subject: subject, Body: strings.TrimSpace(body)})
		if err != nil || !more {
			return err
		}
		for _, p := range c.ParentHashes {
			if !seen[p] {
				seen[p] = true
				queue = append(queue, p)
			}
		}
	}
	return nil
}

// Behind counts the commits tip reaches that base does not (`git rev-list --count
// base..tip`), reading at most limit commits from each side; complete is false when a side
// had more, and the count is then a lower bound.
func (r *Repo) Behind(base, tip plumbing.Hash, limit int) (n int, complete bool, err error) {
	have := map[plumbing.Hash]bool{}
	complete = true
	walked := 0
	if err := r.walkCommits(base, limit, func(c Commit) (bool, error) {
		have[c.ID] = true
		walked++
		return true, nil
	}); err != nil {
		return 0, false, err
	}
	if walked == limit {
		complete = false
	}
	if tip.IsZero() || have[tip] {
		return 0, complete, nil
	}
	queue, seen := []plumbing.Hash{tip}, map[plumbing.Hash]bool{tip: true}
	for len(queue) > 0 {
		if n == limit {
			return n, false, nil
		}
		id := queue[0]
		queue = queue[1:]
		c, err := r.readCommit(id)
		if err != nil {
			return n, false, err
		}
		n++
		for _, p := range c.ParentHashes {
			if !seen[p] && !have[p] {
				seen[p] = true
				queue = append(queue, p)
			}
		}
	}
	return n, complete, nil
}
