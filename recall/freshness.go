package recall

import (
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
// another project, global ones and learnings without anchors are left unchecked. The
// anchors and source commit come with each hit from the index (index.Doc): reading them from
// the candidates' files at HEAD loaded the memory's whole pack index first, 16% of a
// SessionStart hook's CPU at 10,000 learnings (perf, 60 runs). In the project it reads HEAD's
// tree for their paths and the index entries of those paths.
func checkFreshness(ctx context.Context, repo *gitstore.Repo, ws *Workspace, cs []Candidate, only map[string]bool) {
	if ws == nil || ws.Root == "" || ws.Project == learnings.Global {
		return
	}
	var ls []*learnings.Learning
	var at []int
	var paths []string
	for i, c := range cs {
		if c.Project != ws.Project || len(c.Anchors) == 0 || only != nil && !only[c.ID] {
			continue
		}
		l := &learnings.Learning{Project: c.Project, Anchors: c.Anchors}
		l.Source.Commit = c.SourceCommit
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
