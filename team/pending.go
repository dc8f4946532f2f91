package team

import (
	"context"
	"sort"
	"strings"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/learnings"
	memsync "github.com/reflect-memory/reflect/sync"
)

// Pending is a promotion on a team's remote that its main does not hold yet.
type Pending struct {
	Team   string   `json:"team"`
	Branch string   `json:"branch"`
	Commit string   `json:"commit"`
	Author string   `json:"author,omitempty"`
	IDs    []string `json:"ids"`
	Titles []string `json:"titles"`
}

// ListPending pulls team name, asks its remote for its promotion branches, fetches them, and lists
// those whose learnings are not all on main yet (a merge, squash or rebase of the branch
// puts them there; a reviewer's edit during review counts as merged too). Branches are read
// as data only: nothing of theirs is checked out.
func ListPending(ctx context.Context, personal *gitstore.Repo, name string) ([]Pending, error) {
	// against the remote's main as it is now, not as the last pull left it
	if _, err := Pull(ctx, personal, name); err != nil {
		return nil, err
	}
	r, err := Open(personal, name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	tips, err := memsync.Branches(ctx, r, "origin", BranchPrefix)
	if err != nil {
		return nil, err
	}
	if len(tips) == 0 {
		return nil, nil
	}
	if err := memsync.FetchBranches(ctx, r, "origin", BranchPrefix); err != nil {
		return nil, err
	}
	r2, err := gitstore.Open(r.Root()) // the fetch's packs are seen by a fresh open
	if err != nil {
		return nil, err
	}
	defer r2.Close()
	head, err := r2.Head()
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(tips))
	for b := range tips {
		names = append(names, b)
	}
	sort.Strings(names)
	s := filesystem.NewStorage(osfs.New(r2.GitDir()), cache.NewObjectLRUDefault())
	defer s.Close()
	var out []Pending
	for _, b := range names {
		p, ok := pendingOf(r2, s, head, b, tips[b])
		if ok {
			p.Team = name
			out = append(out, p)
		}
	}
	return out, nil
}

// pendingOf reads what branch adds to the main it started from; ok is false when main holds
// every learning it adds (or it adds none).
func pendingOf(r *gitstore.Repo, s *filesystem.Storage, head plumbing.Hash, branch string, tip plumbing.Hash) (Pending, bool) {
	p := Pending{Branch: branch, Commit: tip.String()}
	c, err := object.GetCommit(s, tip)
	if err != nil { // not fetched: say it is there, with what its name tells
		if id, ok := strings.CutPrefix(branch, BranchPrefix); ok && learnings.ValidID(id) {
			p.IDs, p.Titles = []string{id}, []string{""}
		}
		return p, true
	}
	p.Author = c.Author.Email
	var parentTree plumbing.Hash
	if len(c.ParentHashes) > 0 {
		parentTree, _ = r.TreeOf(c.ParentHashes[0], "")
	}
	diff, err := r.DiffTrees(parentTree, c.TreeHash, "")
	if err != nil {
		return p, true
	}
	onMain := true
	mainTree, _ := r.TreeOf(head, "")
	for _, ch := range diff {
		id, ok := learnings.IDFromPath(ch.Path)
		if !ok || ch.To.IsZero() {
			continue
		}
		p.IDs = append(p.IDs, id)
		title := ""
		if data, err := r.ReadBlob(ch.To); err == nil {
			if l, err := learnings.Parse(ch.Path, data); err == nil {
				title = l.Title
			}
		}
		p.Titles = append(p.Titles, title)
		if _, found, err := r.Entry(mainTree, ch.Path); mainTree.IsZero() || err != nil || !found {
			onMain = false
		}
	}
	if len(p.IDs) == 0 {
		if id, ok := strings.CutPrefix(branch, BranchPrefix); ok && learnings.ValidID(id) {
			p.IDs, p.Titles = []string{id}, []string{""}
			return p, true
		}
		return p, false
	}
	return p, !onMain
}
