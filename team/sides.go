package team

import (
	"bytes"
	"container/heap"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/learnings"
)

// sideLimit bounds the commits one merge's walk reads (its side branch and main's commits of
// the same age). A merge past it reviews nothing: held back, never a review on a guess.
const sideLimit = 5_000

// merged is what one merge commit on main's first-parent line brought from its other parents,
// read from git alone (no file's claim of who promoted it counts).
type merged struct {
	ok bool // the walk placed every side commit within sideLimit
	// writers are, for each learning path the merge brought, the authors (lower case) of the
	// side commits that added or changed it, oldest first, and the merge's own author when
	// its version is none of its parents' (a change made in the merge).
	writers map[string][]string
	// adder is, for each path a side commit added, the author of the oldest that did.
	adder map[string]string
}

// mergedBy reads merge commit c: which commits are on its side (reachable from its other
// parents, not from its first: git log c^1..c^2) and who among them changed each learning.
func mergedBy(r *gitstore.Repo, s *filesystem.Storage, c *object.Commit) *merged {
	m := &merged{writers: map[string][]string{}, adder: map[string]string{}}
	side, ok := sideCommits(s, c, sideLimit)
	if !ok {
		return m
	}
	tree := func(h plumbing.Hash) (plumbing.Hash, bool) {
		t, err := r.TreeOf(h, learnings.Dir)
		return t, err == nil
	}
	// changedByAll lists the learning paths commit x's tree holds differently from every one
	// of its parents (for one parent: its diff; for a merge: what the merge itself made)
	changedByAll := func(x *object.Commit) (map[string]gitstore.Change, bool) {
		to, ok := tree(x.Hash)
		if !ok {
			return nil, false
		}
		parents := x.ParentHashes
		if len(parents) == 0 {
			parents = []plumbing.Hash{plumbing.ZeroHash}
		}
		var out map[string]gitstore.Change
		for _, p := range parents {
			from, ok := tree(p)
			if !ok {
				return nil, false
			}
			diff, err := r.DiffTrees(from, to, learnings.Dir)
			if err != nil {
				return nil, false
			}
			here := map[string]gitstore.Change{}
			for _, ch := range diff {
				if _, isLearning := learnings.IDFromPath(ch.Path); isLearning && (out == nil || out[ch.Path].Path != "") {
					here[ch.Path] = ch
				}
			}
			out = here
		}
		return out, true
	}
	for _, sc := range side { // oldest first
		changes, ok := changedByAll(sc)
		if !ok {
			return m
		}
		who := strings.ToLower(sc.Author.Email)
		for p, ch := range changes {
			m.writers[p] = append(m.writers[p], who)
			if ch.From.IsZero() && m.adder[p] == "" && !ch.To.IsZero() {
				m.adder[p] = who
			}
		}
	}
	own, ok := changedByAll(c)
	if !ok {
		return m
	}
	for p := range own {
		m.writers[p] = append(m.writers[p], strings.ToLower(c.Author.Email))
	}
	m.ok = true
	return m
}

// sideCommits lists the commits reachable from c's second and later parents and not from
// its first, oldest first, as git's merge-base walk finds them: commits are read newest
// first (by committer time), each marked with the sides it is reachable from, until every
// commit still to read is reachable from the first parent. Clock skew can only mark a
// commit of main's as the side's (one more writer: fewer reviews, never more). ok is false
// past limit commits.
func sideCommits(s *filesystem.Storage, c *object.Commit, limit int) ([]*object.Commit, bool) {
	const fromMain, fromSide = 1, 2
	flags := map[plumbing.Hash]uint8{}
	byHash := map[plumbing.Hash]*object.Commit{}
	q := &commitQueue{}
	paint := func(h plumbing.Hash, f uint8) bool {
		if flags[h]|f == flags[h] {
			return true
		}
		flags[h] |= f
		co := byHash[h]
		if co == nil {
			var err error
			if co, err = object.GetCommit(s, h); err != nil {
				return false
			}
			byHash[h] = co
		}
		heap.Push(q, co)
		return true
	}
	for i, p := range c.ParentHashes {
		f := uint8(fromSide)
		if i == 0 {
			f = fromMain
		}
		if !paint(p, f) {
			return nil, false
		}
	}
	var popped []*object.Commit
	seen := map[plumbing.Hash]bool{}
	for reads := 0; q.Len() > 0; reads++ {
		if q.allFrom(flags, fromMain) {
			break
		}
		if reads >= limit {
			return nil, false
		}
		co := heap.Pop(q).(*object.Commit)
		if !seen[co.Hash] {
			seen[co.Hash] = true
			popped = append(popped, co)
		}
		for _, p := range co.ParentHashes {
			if !paint(p, flags[co.Hash]) {
				return nil, false
			}
		}
	}
	var side []*object.Commit
	for i := len(popped) - 1; i >= 0; i-- {
		if flags[popped[i].Hash] == fromSide {
			side = append(side, popped[i])
		}
	}
	return side, true
}

// commitQueue is a max-heap of commits by committer time.
type commitQueue []*object.Commit

func (q commitQueue) Len() int { return len(q) }
func (q commitQueue) Less(i, j int) bool {
	if !q[i].Committer.When.Equal(q[j].Committer.When) {
		return q[i].Committer.When.After(q[j].Committer.When)
	}
	return bytes.Compare(q[i].Hash[:], q[j].Hash[:]) < 0
}
func (q commitQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *commitQueue) Push(x any)   { *q = append(*q, x.(*object.Commit)) }
func (q *commitQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}

// allFrom reports whether every queued commit carries flag f.
func (q commitQueue) allFrom(flags map[plumbing.Hash]uint8, f uint8) bool {
	for _, c := range q {
		if flags[c.Hash]&f == 0 {
			return false
		}
	}
	return true
}
