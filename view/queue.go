package view

import (
	"fmt"
	"net/http"

	"github.com/reflect-memory/reflect/drain"
	"github.com/reflect-memory/reflect/drain/drainstate"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/provenance"
	"github.com/reflect-memory/reflect/queue"
)

// drainCommits is how many drain commits the queue page lists, found in at most
// drainWalk commits back from HEAD.
const (
	drainCommits = 20
	drainWalk    = 2000
)

type drainCommit struct {
	gitstore.Commit
	Learnings []link // the learnings the commit added or changed
	Machine   string
}

type queueData struct {
	Items   []queue.Item
	Bad     []string
	Last    *drain.Report
	Paused  *drainstate.Pause
	Caps    []drainstate.Cap
	Day     string
	Drains  []drainCommit
	Capped  string
	Extract string
}

func (s *Server) queue(w http.ResponseWriter, r *http.Request) {
	var d queueData
	err := s.withRepo(func(repo *gitstore.Repo) error {
		if err := s.cache.load(repo); err != nil {
			return err
		}
		items, bad, err := queue.List(repo)
		if err != nil {
			return err
		}
		d.Items = items
		for _, e := range bad {
			d.Bad = append(d.Bad, e.Error())
		}
		cfg := repo.Config().Drain
		u := drainstate.UsageOn(repo, s.o.Now())
		d.Last, d.Paused, d.Caps, d.Day = drain.LastDrain(repo), drainstate.Paused(repo), drainstate.Caps(cfg, u), u.Day
		d.Capped, d.Extract = drainstate.CapReached(cfg, u), drainstate.Describe(cfg.Extractor)
		d.Drains, err = s.drains(repo)
		return err
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "queue", page{Title: "Queue and drain", Nav: "queue", Data: d})
}

// drains finds the latest drain commits (every machine's: they are in git) and what each
// wrote under learnings/.
func (s *Server) drains(repo *gitstore.Repo) ([]drainCommit, error) {
	head, err := repo.Head()
	if err != nil {
		return nil, err
	}
	log, err := repo.Log(head, drainWalk)
	if err != nil {
		return nil, err
	}
	var out []drainCommit
	for _, c := range log {
		if len(out) == drainCommits {
			break
		}
		if !drain.IsDrainCommit(c.Subject) {
			continue
		}
		dc := drainCommit{Commit: c}
		var parent = c.ID
		if len(c.Parents) > 0 {
			parent = c.Parents[0]
		}
		from, err := repo.TreeOf(parent, learnings.Dir)
		if err != nil {
			return nil, err
		}
		to, err := repo.TreeOf(c.ID, learnings.Dir)
		if err != nil {
			return nil, err
		}
		if len(c.Parents) == 0 {
			from = to
		}
		changes, err := repo.DiffTrees(from, to, learnings.Dir)
		if err != nil {
			return nil, err
		}
		for _, ch := range changes {
			if id, ok := learnings.IDFromPath(ch.Path); ok {
				dc.Learnings = append(dc.Learnings, s.linkTo(id))
			}
		}
		out = append(out, dc)
	}
	return out, nil
}

func (s *Server) entry(w http.ResponseWriter, r *http.Request) {
	var it queue.Item
	err := s.withRepo(func(repo *gitstore.Repo) error {
		items, _, err := queue.List(repo)
		if err != nil {
			return err
		}
		it, err = queue.Find(items, r.PathValue("id"))
		return err
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "entry", page{Title: "Capture " + it.Entry.ID, Nav: "queue", Data: it})
}

// retry is reflect queue retry ID: the failed entry back in the queue (one commit), and a
// pause of LLM draining lifted.
func (s *Server) retry(w http.ResponseWriter, r *http.Request) {
	err := s.withRepo(func(repo *gitstore.Repo) error {
		moved, err := queue.Retry(r.Context(), repo, r.PathValue("id"), false, s.o.Now(), provenance.CapturedBy(repo))
		if err != nil {
			return err
		}
		if len(moved) == 0 {
			return &badRequest{"no failed entry " + r.PathValue("id")}
		}
		s.wrote(repo)
		_, err = drainstate.Resume(repo)
		return err
	})
	if err != nil {
		s.fail(w, r, fmt.Errorf("nothing was committed: %w", err))
		return
	}
	http.Redirect(w, r, "/queue?done=retried", http.StatusSeeOther)
}

// drop is reflect queue drop ID: the entry removed for good, in one commit.
func (s *Server) drop(w http.ResponseWriter, r *http.Request) {
	err := s.withRepo(func(repo *gitstore.Repo) error {
		_, err := queue.Drop(r.Context(), repo, r.PathValue("id"))
		if err == nil {
			s.wrote(repo)
		}
		return err
	})
	if err != nil {
		s.fail(w, r, fmt.Errorf("nothing was committed: %w", err))
		return
	}
	http.Redirect(w, r, "/queue?done=dropped", http.StatusSeeOther)
}
