package view

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/index"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/team"
)

// memories are the values of the list's team/personal filter: a learning is "team" when a
// team memory's main holds it (promoted and merged, or written there), else "personal".
var memories = []string{"personal", "team"}

// teamState is one team memory as the server keeps it for its life: the repository open
// (opening one per request cost 0.49 ms against 0.02 ms for reading the HEAD of one kept
// open, BenchmarkHandles/team), opened again when its HEAD moves (a sync fetched a pack
// go-git sees only on a fresh open) or it cannot be read; the learning ids its main holds,
// read from the paths alone (no file parsed), again only when HEAD moved.
type teamState struct {
	repo *gitstore.Repo
	head plumbing.Hash
	ids  map[string]bool
	// parsed are its learnings, parsed when a page first lists them (by blob, kept across
	// reopenings and, in the team clone's local state, across runs: cache.go)
	parsed *cache
	// reviews says who reviewed each (team.Reader, for this HEAD)
	reviews *team.Reader
}

// learnings returns the team's learnings, parsed.
func (t *teamState) learnings() (*cache, error) {
	if err := t.parsed.load(t.repo); err != nil {
		return nil, err
	}
	return t.parsed, nil
}

// review is who reviewed learning id in the team: not reviewed when its promotion is not
// merged into the team's main, or the reviews are not computed for HEAD.
func (t *teamState) review(id string) team.Review {
	if t.reviews == nil {
		if !team.Fresh(t.repo) {
			team.Refresh(t.repo, 0) // as team.Search does; failing, everything reads as not reviewed
		}
		t.reviews = team.NewReader(t.repo)
	}
	rv, _ := t.reviews.Of(id)
	return rv
}

// team returns the kept state of team name, brought to its HEAD; nil when it cannot be
// opened (removed, or not a memory).
func (s *Server) team(personal *gitstore.Repo, name string) *teamState {
	t := s.teamStates[name]
	parsed := newCache()
	if t != nil {
		head, err := t.repo.Head()
		if err == nil && head == t.head {
			return t
		}
		t.repo.Close()
		delete(s.teamStates, name)
		parsed = t.parsed
	}
	tr, err := team.Open(personal, name)
	if err != nil {
		return nil
	}
	head, err := tr.Head()
	if err != nil {
		tr.Close()
		return nil
	}
	t = &teamState{repo: tr, head: head, ids: map[string]bool{}, parsed: parsed}
	files, err := tr.Walk(learnings.Dir)
	if err != nil {
		tr.Close()
		return nil
	}
	for _, f := range files {
		if id, ok := learnings.IDFromPath(f.Path); ok {
			t.ids[id] = true
		}
	}
	s.teamStates[name] = t
	return t
}

// teams returns the team memories' names and, per learning id, the teams holding it. A team
// no longer there is closed and forgotten.
func (s *Server) teams(personal *gitstore.Repo) (names []string, in map[string][]string) {
	in = map[string][]string{}
	names = team.Names(personal)
	slices.Sort(names)
	for name, t := range s.teamStates {
		if !slices.Contains(names, name) {
			t.repo.Close()
			delete(s.teamStates, name)
		}
	}
	for _, name := range names {
		t := s.team(personal, name)
		if t == nil {
			continue
		}
		for id := range t.ids {
			in[id] = append(in[id], name)
		}
	}
	return names, in
}

// closeTeams closes the team memories kept open, keeping their parsed learnings for the
// next run.
func (s *Server) closeTeams() {
	for name, t := range s.teamStates {
		if err := t.parsed.save(t.repo); err != nil {
			s.o.Log.Warn("keep the parsed learnings", "team", name, "err", err)
		}
		t.repo.Close()
		delete(s.teamStates, name)
	}
}

// promoteResult is what the learning's page says after a promotion.
func promoteResult(p *team.Promotion) string {
	msg := fmt.Sprintf("Promoted to team %s on branch %s (%s). ", p.Team, p.Branch, p.Remote)
	switch {
	case p.PR != "":
		msg += "Pull request: " + p.PR
	case p.GHNote != "":
		msg += p.GHNote + ": " + p.Compare
	default:
		msg += "Open the pull request: " + p.Compare
	}
	return msg
}

// promote is reflect promote ID --team NAME: team.Promote copies the learning (id and source
// kept, promoted_by added) to a branch of the team memory after its secret scan, pushes it
// and opens a pull request with gh when it is installed and signed in. The form's version
// must still be the learning's (409 otherwise); nothing of the personal memory changes.
func (s *Server) promote(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimSpace(r.PostFormValue("team"))
	var d learningData
	var result string
	err := s.withLearning(r, func(repo *gitstore.Repo, l *learnings.Learning) error {
		if name == "" {
			return &badRequest{"promote needs a team (reflect team add NAME URL makes one)"}
		}
		base, err := postedBase(r, "base")
		if err != nil {
			return err
		}
		if _, _, err := baseOf(repo, l.ID, base.String()); err != nil {
			return err
		}
		p, err := team.Promote(r.Context(), repo, team.PromoteOptions{Team: name, IDs: []string{l.ID}, Now: s.o.Now(), GH: s.o.GH})
		switch {
		case errors.Is(err, team.ErrNothing):
			result = "Team " + name + "'s main holds this learning as it is already: nothing promoted."
		case err != nil:
			return err
		default:
			result = promoteResult(p)
		}
		d, err = s.learningData(r.Context(), repo, l)
		return err
	})
	if err != nil {
		s.fail(w, r, fmt.Errorf("nothing was promoted: %w", err))
		return
	}
	s.render(w, r, http.StatusOK, "learning", page{Title: d.L.Title, Nav: "list", Flash: result, Data: d})
}

// eachTeam calls fn with each team of names that is open and its learnings, parsed; a team
// whose learnings cannot be read is logged and left out.
func (s *Server) eachTeam(names []string, fn func(name string, t *teamState, c *cache)) {
	for _, name := range names {
		t := s.teamStates[name]
		if t == nil {
			continue
		}
		c, err := t.learnings()
		if err != nil {
			s.o.Log.Warn("read a team's learnings", "team", name, "err", err)
			continue
		}
		fn(name, t, c)
	}
}

// teamOnly lists the learnings the team memories hold and the personal memory does not
// (mine: its ids), each once: under the first team by name that holds it, with the
// others.
func (s *Server) teamOnly(names []string, mine map[string]*learnings.Learning, in map[string][]string) []row {
	var out []row
	seen := map[string]bool{}
	s.eachTeam(names, func(name string, t *teamState, c *cache) {
		for _, l := range c.all {
			if mine[l.ID] != nil || seen[l.ID] {
				continue
			}
			seen[l.ID] = true
			out = append(out, s.teamRow(t, name, l, in))
		}
	})
	return out
}

// teamRow is the list's row of a learning only team name holds.
func (s *Server) teamRow(t *teamState, name string, l *learnings.Learning, in map[string][]string) row {
	return row{L: l, Team: name, Reviewed: t.review(l.ID).Reviewed,
		Teams: slices.DeleteFunc(slices.Clone(in[l.ID]), func(n string) bool { return n == name })}
}

// teamSearch runs a search in every team memory's index (opened per request, as the
// personal one is) and returns the rows of the hits the personal memory does not hold.
func (s *Server) teamSearch(ctx context.Context, personal *gitstore.Repo, names []string, q index.Query, mine map[string]*learnings.Learning, in map[string][]string) []row {
	var out []row
	seen := map[string]bool{}
	q.Bare, q.Snippets = false, true
	s.eachTeam(names, func(name string, t *teamState, c *cache) {
		ix, err := index.Open(ctx, t.repo, index.Options{LockTimeout: personal.Config().Git.LockTimeout.Std()}) // this machine's setting, not the team's
		if err != nil {
			s.o.Log.Warn("search a team", "team", name, "err", err)
			return
		}
		res, err := ix.Search(ctx, q)
		ix.Close()
		if err != nil {
			return
		}
		for _, h := range res.Hits {
			l := c.byID[h.ID]
			if l == nil || mine[h.ID] != nil || seen[h.ID] {
				continue
			}
			seen[h.ID] = true
			r := s.teamRow(t, name, l, in)
			r.Score, r.Snippet = h.Score, highlight(h.Snippet, h.Marks)
			out = append(out, r)
		}
	})
	return out
}

// teamLearningData is the read-only page of a learning in a team memory.
type teamLearningData struct {
	L      *learnings.Learning
	Body   template.HTML
	Team   string
	Review team.Review
	// Mine: the personal memory holds it too (its page is the one to curate it on)
	Mine bool
}

// teamLearning shows a learning of a team memory, read-only: it is the team's, changed by
// a promotion merged there, not here.
func (s *Server) teamLearning(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("team")
	var d teamLearningData
	err := s.withRepo(func(repo *gitstore.Repo) error {
		if err := team.CheckName(name); err != nil {
			return err
		}
		if !slices.Contains(team.Names(repo), name) {
			return fmt.Errorf("%w %q (reflect team list names them)", team.ErrUnknown, name)
		}
		t := s.team(repo, name)
		if t == nil {
			return fmt.Errorf("%w %q: it cannot be read (reflect team sync %s)", team.ErrUnknown, name, name)
		}
		c, err := t.learnings()
		if err != nil {
			return err
		}
		l, err := c.resolve(r.PathValue("id"))
		if err != nil {
			return err
		}
		if err := s.cache.load(repo); err != nil {
			return err
		}
		d = teamLearningData{L: l, Team: name, Review: t.review(l.ID), Mine: s.cache.byID[l.ID] != nil}
		var buf bytes.Buffer
		if err := md.Convert([]byte(l.Body), &buf); err != nil {
			return err
		}
		d.Body = template.HTML(buf.String())
		return nil
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "teamlearning", page{Title: d.L.Title, Nav: "list", Data: d})
}
