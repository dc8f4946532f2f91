package recall

import (
	"bytes"
	"context"
	"sort"
	"time"

	"github.com/reflect-memory/reflect/anchor"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/learnings"
)

// renameBudget bounds the rename detection run for an orphaned candidate; past it the
// learning is marked gone without saying where the file went.
const renameBudget = 30 * time.Millisecond

// freshnessBudget bounds the whole check in a recall (see checkFreshness).
const freshnessBudget = 250 * time.Millisecond

// checkFreshness compares the anchors of the candidates of the workspace's project with its
// tree (package anchor), marks each candidate's Freshness, and moves the orphaned ones after
// every other: their files are gone, so they say less than a learning whose files are as
// they were. Drifted ones keep their rank; Render says which file changed. Candidates of
// another project, global ones and learnings without anchors are left unchecked. It reads
// only the candidates' files from the memory (a dozen blobs, of which only the anchors and
// source.commit are decoded) and, in the project, HEAD's tree for their paths and the index
// entries of those paths.
func checkFreshness(ctx context.Context, repo *gitstore.Repo, ws *Workspace, cs []Candidate, only map[string]bool) {
	if ws == nil || ws.Root == "" || ws.Project == learnings.Global {
		return
	}
	var ls []*learnings.Learning
	var at, mine []int
	var paths, files []string
	for i, c := range cs {
		if c.Project == ws.Project && (only == nil || only[c.ID]) {
			mine, files = append(mine, i), append(files, c.Path)
		}
	}
	raws, err := repo.ReadFiles(files)
	if err != nil {
		return
	}
	for k, i := range mine {
		c, raw := cs[i], raws[k]
		if raw == nil || !bytes.Contains(raw, []byte("\nanchors:")) {
			continue
		}
		l := &learnings.Learning{Project: c.Project}
		var ok bool
		if l.Anchors, l.Source.Commit, ok = learnings.QuickAnchors(raw); !ok {
			var err error
			if l, err = learnings.Parse(c.Path, raw); err != nil {
				continue
			}
		}
		if len(l.Anchors) == 0 {
			continue
		}
		ls, at = append(ls, l), append(at, i)
		for _, a := range l.AnchorList() {
			paths = append(paths, a.Path)
		}
	}
	_ = anchor.Remember(repo, *ws) // where the project lives, for the drain
	if len(ls) == 0 {
		return
	}
	// The project's repository is read in a goroutine that the recall stops waiting for at
	// freshnessBudget or the deadline: go-git loads a pack's whole .idx on the first lookup,
	// tens of milliseconds in a repository of a million objects, and nothing here may hold
	// a hook past its deadline. Candidates that were not checked in time stay unchecked.
	ctx, cancel := context.WithTimeout(ctx, freshnessBudget)
	defer cancel()
	done := make(chan []anchor.Freshness, 1)
	go func() { done <- checkAll(ctx, *ws, ls, paths) }()
	var fs []anchor.Freshness
	select {
	case fs = <-done:
	case <-ctx.Done():
		return
	}
	for k, f := range fs {
		cs[at[k]].Freshness = f
	}
	sort.SliceStable(cs, func(i, j int) bool {
		return cs[i].Freshness.State != anchor.Orphaned && cs[j].Freshness.State == anchor.Orphaned
	})
}

// checkAll compares ls's anchors with the workspace's project, stopping at ctx's end.
func checkAll(ctx context.Context, ws Workspace, ls []*learnings.Learning, paths []string) []anchor.Freshness {
	out := make([]anchor.Freshness, len(ls))
	p, err := anchor.Open(ws)
	if err != nil {
		return out
	}
	defer p.Close()
	p.Prepare(paths)
	for k, l := range ls {
		if ctx.Err() != nil {
			return out // the rest stay unchecked
		}
		f := p.Check(l)
		if f.State == anchor.Orphaned {
			rctx, cancel := context.WithTimeout(ctx, renameBudget)
			p.Renames(rctx, l.Source.Commit, &f)
			cancel()
		}
		out[k] = f
	}
	return out
}
