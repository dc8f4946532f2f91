package view

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/reflect-memory/reflect/gitstore"
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
}

// team returns the kept state of team name, brought to its HEAD; nil when it cannot be
// opened (removed, or not a memory).
func (s *Server) team(personal *gitstore.Repo, name string) *teamState {
	t := s.teamStates[name]
	if t != nil {
		head, err := t.repo.Head()
		if err == nil && head == t.head {
			return t
		}
		t.repo.Close()
		delete(s.teamStates, name)
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
	t = &teamState{repo: tr, head: head, ids: map[string]bool{}}
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

// closeTeams closes the team memories kept open.
func (s *Server) closeTeams() {
	for name, t := range s.teamStates {
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
