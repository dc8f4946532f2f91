package doctor

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/reflect-memory/reflect/anchor"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/workspace"
)

// maxFreshnessProjects bounds how many projects the freshness check compares: the current
// directory's first, then the others this machine knows the work tree of, by key.
const maxFreshnessProjects = 20

// freshness reports, for each project whose work tree this machine knows (the current
// directory's first), how many of its anchored learnings are drifted or orphaned.
func (d *doctor) freshness(ctx context.Context, r *gitstore.Repo) {
	var wss []workspace.Workspace
	if d.o.Cwd != "" {
		if ws, err := workspace.Read(d.o.Cwd, 0); err == nil && ws.Root != "" {
			wss = append(wss, ws)
		}
	}
	for _, key := range anchor.Projects(r) {
		if len(wss) >= maxFreshnessProjects {
			break
		}
		if slices.ContainsFunc(wss, func(w workspace.Workspace) bool { return w.Project == key }) {
			continue
		}
		if ws, ok := anchor.Find(r, key, ""); ok {
			wss = append(wss, ws)
		}
	}
	for _, ws := range wss {
		p, err := anchor.Open(ws)
		if err != nil {
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		s, err := p.Count(cctx, r)
		cancel()
		p.Close()
		switch {
		case err != nil || s.Anchored == 0:
		case s.Drifted+s.Orphaned == 0:
			d.add(Finding{Check: "freshness", Severity: OK, Message: fmt.Sprintf("%s: the files of its %s are as they were learned", s.Project, count(s.Anchored, "anchored learning"))})
		default:
			var lines []string
			for _, st := range s.Stale {
				lines = append(lines, fmt.Sprintf("%s %s: %s", st.Freshness.State, st.ID, st.Freshness.Note()))
			}
			d.add(Finding{Check: "freshness", Severity: Warn, Details: lines,
				Message: fmt.Sprintf("%s: %d drifted, %d orphaned of %s: their files changed or went away since they were learned", s.Project, s.Drifted, s.Orphaned, count(s.Anchored, "anchored learning")),
				Fix:     fmt.Sprintf("cd %s && %s", q(ws.Root), d.reflect("stale --review"))})
		}
	}
}
