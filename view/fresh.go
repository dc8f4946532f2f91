package view

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/reflect-memory/reflect/anchor"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/provenance"
)

// freshStates are the values of the list's freshness filter; unchecked is anchor.Unchecked
// (no anchors, a global lesson, or a project whose work tree this machine does not know).
var freshStates = []string{string(anchor.Fresh), string(anchor.Drifted), string(anchor.Orphaned), "unchecked"}

// checker compares learnings' anchors with their projects as they are on this machine, with
// package anchor's comparison (the one reflect stale and a recall make). Only the projects
// state/roots.json knows the work tree of are opened — the record is local, written by this
// machine's recalls, so nothing synced chooses a directory the viewer reads — and each at
// most once a request: a work tree changes under the page, so nothing is kept between them.
type checker struct {
	repo  *gitstore.Repo
	known map[string]bool            // anchor.Projects
	open  map[string]*anchor.Project // nil: known, but not found there any more
}

func newChecker(repo *gitstore.Repo) *checker {
	c := &checker{repo: repo, known: map[string]bool{}, open: map[string]*anchor.Project{}}
	for _, p := range anchor.Projects(repo) {
		c.known[p] = true
	}
	return c
}

// applies says whether l can be checked here: it has anchors and its project's work tree is
// known.
func (c *checker) applies(l *learnings.Learning) bool {
	return len(l.Anchors) > 0 && c.known[l.Project]
}

// prepare opens the projects of ls and reads, in one pass over each project's index, the
// entries of every path their anchors name (anchor.Project.Prepare: a later path of the same
// project would be hashed instead).
func (c *checker) prepare(ls []*learnings.Learning) {
	paths := map[string][]string{}
	for _, l := range ls {
		if !c.applies(l) {
			continue
		}
		for _, a := range l.AnchorList() {
			paths[l.Project] = append(paths[l.Project], a.Path)
		}
	}
	for project, ps := range paths {
		if p := c.project(project); p != nil {
			p.Prepare(ps)
		}
	}
}

// project opens the work tree of a known project, once.
func (c *checker) project(key string) *anchor.Project {
	if p, ok := c.open[key]; ok {
		return p
	}
	c.open[key] = nil
	if !c.known[key] {
		return nil
	}
	ws, ok := anchor.Find(c.repo, key, "")
	if !ok {
		return nil
	}
	p, err := anchor.Open(ws)
	if err != nil {
		return nil
	}
	c.open[key] = p
	return p
}

// state is l's freshness, anchor.Unchecked when it cannot be checked here.
func (c *checker) state(l *learnings.Learning) anchor.State {
	if !c.applies(l) {
		return anchor.Unchecked
	}
	p := c.project(l.Project)
	if p == nil {
		return anchor.Unchecked
	}
	return p.Check(l).State
}

func (c *checker) close() {
	for _, p := range c.open {
		p.Close()
	}
}

// freshOf fills in the freshness of rows, the projects' indexes read once for all of them.
func freshOf(c *checker, rows []row) {
	ls := make([]*learnings.Learning, len(rows))
	for i := range rows {
		ls[i] = rows[i].L
	}
	c.prepare(ls)
	for i := range rows {
		rows[i].Fresh = c.state(rows[i].L)
	}
}

// filterFresh keeps the rows in state want (one of freshStates).
func filterFresh(c *checker, rows []row, want string) []row {
	freshOf(c, rows)
	if want == "unchecked" {
		want = string(anchor.Unchecked)
	}
	return slices.DeleteFunc(rows, func(r row) bool { return string(r.Fresh) != want })
}

// staleOf is l compared with its project for its page: the anchors' states, renames, and
// the commits that changed each file that is not fresh, as reflect stale --format json
// gives them; nil when l cannot be checked here.
func staleOf(ctx context.Context, repo *gitstore.Repo, l *learnings.Learning) *anchor.Stale {
	c := newChecker(repo)
	defer c.close()
	if !c.applies(l) {
		return nil
	}
	p := c.project(l.Project)
	if p == nil {
		return nil
	}
	st := p.Detail(ctx, l)
	if st.Freshness.State == anchor.Unchecked {
		return nil
	}
	st.Learning = nil // the page has it
	return &st
}

// keep is reflect stale --review's "keep": the learning is anchored to its files as they
// are now (anchor.Project.Keep), in one commit, refused when the learning changed since
// the page was loaded; a person reviewed it, which provenance records as the CLI does.
func (s *Server) keep(w http.ResponseWriter, r *http.Request) {
	id, changed, err := s.lifecycle(r, nil, func(repo *gitstore.Repo, ls []*learnings.Learning) (bool, string, error) {
		l := ls[0]
		c := newChecker(repo)
		defer c.close()
		p := c.project(l.Project)
		if p == nil || len(l.Anchors) == 0 {
			return false, "", &badRequest{fmt.Sprintf("no work tree of %s is known on this machine (reflect records one when a session runs in it): nothing to re-anchor to", l.Project)}
		}
		f := p.Check(l)
		switch f.State {
		case anchor.Unchecked, anchor.Fresh:
			return false, "", nil // nothing to re-anchor
		case anchor.Orphaned:
			rctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
			p.Renames(rctx, l.Source.Commit, &f)
			cancel()
		}
		msg, _ := p.Keep(l, f, s.o.Now())
		return true, msg, nil
	})
	if err == nil && changed {
		s.withRepo(func(repo *gitstore.Repo) error {
			if err := provenance.MarkReviewed(repo, id, "you"); err != nil {
				s.o.Log.Warn("record the review", "id", id, "err", err)
			}
			return nil
		})
	}
	s.after(w, r, id, err, changed, "reanchored")
}
