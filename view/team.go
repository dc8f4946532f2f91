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

// teamIDs is what one team memory's main holds: the learning ids in its tree, read from the
// paths alone (no file parsed), again only when the team's HEAD moved.
type teamIDs struct {
	head plumbing.Hash
	ids  map[string]bool
}

// teams returns the team memories' names and, per learning id, the teams holding it.
func (s *Server) teams(personal *gitstore.Repo) (names []string, in map[string][]string) {
	in = map[string][]string{}
	names = team.Names(personal)
	slices.Sort(names)
	for _, name := range names {
		tr, err := team.Open(personal, name)
		if err != nil {
			continue
		}
		head, err := tr.Head()
		c, ok := s.teamCache[name]
		if err == nil && (!ok || c.head != head) {
			c = teamIDs{head: head, ids: map[string]bool{}}
			files, err := tr.Walk(learnings.Dir)
			if err == nil {
				for _, f := range files {
					if id, ok := learnings.IDFromPath(f.Path); ok {
						c.ids[id] = true
					}
				}
				s.teamCache[name] = c
			}
		}
		tr.Close()
		for id := range c.ids {
			in[id] = append(in[id], name)
		}
	}
	return names, in
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
