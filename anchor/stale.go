package anchor

import (
	"context"
	"fmt"
	"path"
	"sort"
	"time"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/learnings"
)

// Stale is a learning whose anchors are not all as they were, with what changed them.
type Stale struct {
	Learning  *learnings.Learning `json:"-"`
	ID        string              `json:"id"`
	Title     string              `json:"title"`
	Project   string              `json:"project"`
	Path      string              `json:"path"`
	Commit    string              `json:"commit,omitempty"` // the project's commit it was learned on
	Freshness Freshness           `json:"freshness"`
	// Changes are, per anchored path that is not fresh, the commits since Commit that
	// changed it, newest first (at most changesShown).
	Changes map[string][]Commit `json:"changes"`
	More    map[string]bool     `json:"more,omitempty"` // the list of that path was cut
}

// changesShown is how many commits a path's summary lists.
const changesShown = 5

// Summary is the freshness of a project's anchored learnings.
type Summary struct {
	Project  string  `json:"project"`
	Anchored int     `json:"anchored"` // current learnings with anchors
	Fresh    int     `json:"fresh"`
	Drifted  int     `json:"drifted"`
	Orphaned int     `json:"orphaned"`
	Stale    []Stale `json:"stale"` // the drifted and orphaned ones, orphaned first
	// Bad are the project's learning files that did not parse, each naming file and field.
	Bad []string `json:"bad,omitempty"`
}

// Survey compares every current learning of the project p is opened on with its tree: the
// counts, and for each drifted or orphaned learning the renames and the commits that
// changed its files. Rename detection gets at most renameBudget a learning.
func (p *Project) Survey(ctx context.Context, r *gitstore.Repo) (*Summary, error) {
	return p.survey(ctx, r, true)
}

// Count is Survey without the renames and commit lists: the counts, and the stale
// learnings with their anchors' states (reflect doctor).
func (p *Project) Count(ctx context.Context, r *gitstore.Repo) (*Summary, error) {
	return p.survey(ctx, r, false)
}

func (p *Project) survey(ctx context.Context, r *gitstore.Repo, details bool) (*Summary, error) {
	s := &Summary{Project: p.ws.Project, Stale: []Stale{}}
	dir := path.Dir(learnings.PathFor(p.ws.Project, "x"))
	files, err := r.Walk(dir)
	if err != nil {
		return nil, err
	}
	var ls []*learnings.Learning
	var paths []string
	for _, f := range files {
		if path.Dir(f.Path) != dir || path.Ext(f.Path) != ".md" {
			continue
		}
		l, _, err := learnings.Read(r, f.Path, f.ID)
		if err != nil {
			s.Bad = append(s.Bad, err.Error())
			continue
		}
		if l.Status != learnings.StatusCurrent || !p.Applies(l) {
			continue
		}
		ls = append(ls, l)
		for _, a := range l.AnchorList() {
			paths = append(paths, a.Path)
		}
	}
	p.Prepare(paths)
	for _, l := range ls {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		s.Anchored++
		f := p.Check(l)
		switch f.State {
		case Fresh:
			s.Fresh++
			continue
		case Drifted:
			s.Drifted++
		case Orphaned:
			s.Orphaned++
		default:
			continue
		}
		s.Stale = append(s.Stale, p.detail(ctx, l, f, details))
	}
	sort.SliceStable(s.Stale, func(i, j int) bool {
		return s.Stale[i].Freshness.State == Orphaned && s.Stale[j].Freshness.State != Orphaned
	})
	return s, nil
}

// Detail is l compared with the project as Survey reports a stale learning: its anchors'
// states, where a gone file went, and per file that is not fresh the commits since it was
// learned that changed it (reflect view's page of one learning).
func (p *Project) Detail(ctx context.Context, l *learnings.Learning) Stale {
	return p.detail(ctx, l, p.Check(l), true)
}

func (p *Project) detail(ctx context.Context, l *learnings.Learning, f Freshness, details bool) Stale {
	if f.State == Orphaned && details {
		rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		p.Renames(rctx, l.Source.Commit, &f)
		cancel()
	}
	st := Stale{Learning: l, ID: l.ID, Title: l.Title, Project: l.Project, Path: l.RelPath(),
		Commit: l.Source.Commit, Freshness: f, Changes: map[string][]Commit{}}
	for _, c := range f.Anchors {
		if c.State == Fresh || !details {
			continue
		}
		cs, more := p.Changes(l.Source.Commit, c.Path, changesShown)
		if cs == nil {
			cs = []Commit{}
		}
		st.Changes[c.Path] = cs
		if more {
			if st.More == nil {
				st.More = map[string]bool{}
			}
			st.More[c.Path] = true
		}
	}
	return st
}

// Keep is a review's "keep" (reflect stale --review, reflect view): the change to l, made
// inside learnings.Change, that re-anchors it (Reanchor) and dates it now, and the commit
// message, which names the files it dropped.
func (p *Project) Keep(l *learnings.Learning, f Freshness, now time.Time) (msg string, dropped []string) {
	dropped = p.Reanchor(l, f)
	l.Updated = now.UTC().Truncate(time.Second)
	msg = fmt.Sprintf("re-anchor: %s %s\n\nkept after a review: its files changed since it was learned", l.ID, l.Title)
	for _, d := range dropped {
		msg += "\n- " + d + " (gone)"
	}
	return msg, dropped
}

// ArchiveReason is the reason a review's "archive" gives in its commit.
const ArchiveReason = "its files changed since it was learned"

// Reanchor points l's anchors at the project as it is now — a person checked that the
// lesson still holds: each file at its current blob, a renamed one at its new path, a gone
// one dropped — and records HEAD as the commit it holds for. It reports what it dropped.
func (p *Project) Reanchor(l *learnings.Learning, f Freshness) (dropped []string) {
	var as []learnings.Anchor
	for _, c := range f.Anchors {
		at := c.Path
		if c.State == Orphaned && c.RenamedTo != "" {
			at = c.RenamedTo
		}
		blob, _, err := p.Current(at)
		if err != nil || !learnings.ValidObjectID(blob) {
			dropped = append(dropped, c.Path)
			continue
		}
		as = append(as, learnings.Anchor{Path: at, Blob: blob})
	}
	l.SetAnchors(as)
	if p.ws.Head != "" {
		l.Source.Commit = p.ws.Head
	}
	return dropped
}
