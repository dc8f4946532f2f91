package view

import (
	"errors"
	"net/http"
	"strings"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/history"
)

type historyData struct {
	Q        string
	Global   bool
	Recent   bool
	Project  string
	Projects []string
	Result   *history.Result
	Session  *history.Session
	// Sessions are the latest sessions when there is no query.
	Sessions []history.Session
	Note     string
	Learned  []link // learnings whose source is Session
}

// history is reflect history search in a page: the same query language, scope and
// evidence windows; ?session=ID shows one session (a learning's source links here).
func (s *Server) history(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	d := historyData{Q: strings.TrimSpace(q.Get("q")), Global: q.Get("project") == "", Recent: q.Get("recent") != "",
		Project: q.Get("project")}
	status := http.StatusOK
	err := s.withRepo(func(repo *gitstore.Repo) error {
		if err := s.cache.load(repo); err != nil {
			return err
		}
		a := history.At(repo.StateDir())
		sessions, err := a.Recent(r.Context(), "", true, 0)
		if errors.Is(err, history.ErrEmpty) {
			d.Note = "No session history on this machine yet: reflect history import reads the transcripts of Claude Code and Codex."
			return nil
		}
		if err != nil {
			return err
		}
		seen := map[string]bool{}
		for _, ss := range sessions {
			if !seen[ss.Project] {
				seen[ss.Project] = true
				d.Projects = append(d.Projects, ss.Project)
			}
		}
		if id := q.Get("session"); id != "" {
			for i := range sessions {
				if sessions[i].ID == id {
					d.Session = &sessions[i]
					break
				}
			}
			if d.Session == nil {
				d.Note = "Session " + id + " is not in this machine's history (it ran on another machine, or was never imported)."
			}
			for _, l := range s.cache.all {
				if l.Source.Session == id {
					d.Learned = append(d.Learned, s.linkTo(l.ID))
				}
			}
		}
		if d.Q == "" {
			if d.Session == nil {
				d.Sessions = sessions[:min(len(sessions), 20)]
			}
			return nil
		}
		hq := history.NewQuery(d.Q)
		hq.Global, hq.Project, hq.Recent = d.Global, d.Project, d.Recent
		hq.LockTimeout = repo.Config().Git.LockTimeout.Std()
		hq.Limit = 10
		hq.BudgetChars = 40000
		res, err := a.Search(r.Context(), hq)
		if err != nil {
			d.Note = "search: " + err.Error()
			status = http.StatusBadRequest
			return nil
		}
		d.Result = res
		return nil
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, status, "history", page{Title: "Session history", Nav: "history", Data: d})
}
