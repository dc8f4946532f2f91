package drain

// Anchors: the project files a proposal is about, each tied to the blob it had on the
// commit the session ran on, and what the extractors are told of candidates whose files
// changed since they were learned (package anchor owns the comparison).

import (
	"fmt"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/reflect-memory/reflect/anchor"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/queue"
	"github.com/reflect-memory/reflect/transcript/redact"
)

// impliedFiles are the files a lesson about a program is about even when the session never
// names them: `make migrate` is only as good as the Makefile it ran.
var impliedFiles = map[string][]string{
	"make": {"Makefile", "makefile", "GNUmakefile"},
	"just": {"justfile", "Justfile"},
}

// openProject opens the entry's project on this machine — the work tree a recall or
// `reflect add` recorded for its key, or the drain's own directory when it is that project
// — or returns nil: an entry drained on another machine, or of a project without git, gets
// no anchors. The entry names only a project key and a commit; the directory is never the
// entry's to choose.
func openProject(r *gitstore.Repo, e *queue.Entry) *anchor.Project {
	if e.Project == "" || e.Project == learnings.Global || e.Commit == "" {
		return nil
	}
	cwd, _ := os.Getwd()
	ws, ok := anchor.Find(r, e.Project, cwd)
	if !ok {
		return nil
	}
	p, err := anchor.Open(ws)
	if err != nil {
		return nil
	}
	return p
}

// anchorProposals ties each proposal's files (and the files its commands imply) to their
// blobs at the entry's commit. A file the project did not have then is dropped (an
// extractor may name one that never existed); a path that holds what looks like a secret is
// never written.
func anchorProposals(p *anchor.Project, e *queue.Entry, props []Proposal) {
	if p == nil {
		return
	}
	for i := range props {
		if props[i].Global {
			continue
		}
		paths := slices.Clone(props[i].Files)
		for _, prog := range append(slices.Clone(props[i].Tags), props[i].Entities...) {
			paths = append(paths, impliedFiles[prog]...)
		}
		as, ok := p.ResolveAt(e.Commit, paths)
		if !ok {
			return // the repository lacks the commit: nothing can be anchored
		}
		as = slices.DeleteFunc(as, func(a learnings.Anchor) bool { return redact.String(a.Path) != a.Path })
		if len(as) > learnings.MaxAnchors {
			as = as[:learnings.MaxAnchors]
		}
		props[i].anchors = as
	}
}

// markStale tells the extractor which candidates' files changed since they were learned,
// with the commits that changed them: a session that shows what such a learning should say
// now may supersede it.
func markStale(r *gitstore.Repo, p *anchor.Project, existing []Existing, paths map[string]string) {
	if p == nil {
		return
	}
	for i, x := range existing {
		raw, err := r.ReadFile(paths[x.ID])
		if err != nil || !strings.Contains(string(raw), "\nanchors:") {
			continue
		}
		l, err := learnings.Parse(paths[x.ID], raw)
		if err != nil {
			continue
		}
		f := p.Check(l)
		if f.State != anchor.Drifted && f.State != anchor.Orphaned {
			continue
		}
		var b strings.Builder
		b.WriteString(string(f.State) + ": " + f.Note())
		for _, c := range f.Anchors {
			if c.State == anchor.Fresh {
				continue
			}
			cs, _ := p.Changes(l.Source.Commit, c.Path, 3)
			for _, ch := range cs {
				fmt.Fprintf(&b, "; %s %s (%s)", ch.ID[:min(7, len(ch.ID))], queue.Clip(ch.Subject, 80), c.Path)
			}
		}
		existing[i].Stale = b.String()
	}
}

// anchorStrings is the anchors list of a learning file.
func anchorStrings(as []learnings.Anchor) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.String()
	}
	return out
}

// maxTouched is how many learnings anchored to a file the session touched are added to the
// candidates beyond the ones its words brought up.
const maxTouched = 4

// touched adds to the candidates the current learnings of the entry's project that are
// anchored to a file the session's commands and their output name (or imply: the Makefile
// behind make) and whose files changed since: the session may show what they should say
// now, though its words did not bring them up. It reads the project's learnings from HEAD,
// decoding only their anchors.
func touched(r *gitstore.Repo, p *anchor.Project, e *queue.Entry, existing []Existing, paths map[string]string) []Existing {
	if p == nil {
		return existing
	}
	named := map[string]bool{}
	for _, n := range e.Digest.Notes {
		if n.Kind != queue.NoteFailure && n.Kind != queue.NoteFollowup {
			continue
		}
		for _, f := range append(filePaths(n.Input), filePaths(n.Text)...) {
			if rel, err := p.Rel(f); err == nil {
				named[rel] = true
			}
		}
		if shellTool(n.Tool) {
			for _, prog := range programs(n.Input) {
				for _, f := range impliedFiles[prog] {
					named[f] = true
				}
			}
		}
	}
	if len(named) == 0 {
		return existing
	}
	dir := path.Dir(learnings.PathFor(e.Project, "x"))
	files, err := r.Walk(dir)
	if err != nil {
		return existing
	}
	added := 0
	for _, f := range files {
		if added == maxTouched {
			break
		}
		id, ok := learnings.IDFromPath(f.Path)
		if _, known := paths[id]; !ok || known || path.Dir(f.Path) != dir {
			continue
		}
		raw, err := r.ReadBlob(f.ID)
		if err != nil || !strings.Contains(string(raw), "\nanchors:") {
			continue
		}
		as, _, ok := learnings.QuickAnchors(raw)
		if !ok || !slices.ContainsFunc(as, func(s string) bool { a, err := learnings.ParseAnchor(s); return err == nil && named[a.Path] }) {
			continue
		}
		l, err := learnings.Parse(f.Path, raw)
		if err != nil || l.Status != learnings.StatusCurrent {
			continue
		}
		if st := p.Check(l).State; st != anchor.Drifted && st != anchor.Orphaned {
			continue
		}
		existing = append(existing, Existing{ID: l.ID, Title: l.Title, Kind: string(l.Kind), Body: queue.Clip(l.Body, 400)})
		paths[l.ID] = f.Path
		added++
	}
	return existing
}
