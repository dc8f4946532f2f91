package recall

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/reflect-memory/reflect/config"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/index"
	"github.com/reflect-memory/reflect/team"
)

// TeamFrom is where a learning of a team memory came from, read from the team's history
// (team.Review): who promoted it, through which pull request, and who merged it.
type TeamFrom struct {
	Name     string `json:"name"`
	Author   string `json:"author,omitempty"`
	By       string `json:"by,omitempty"`
	PR       string `json:"pr,omitempty"`
	Branch   string `json:"branch,omitempty"`
	Reviewed bool   `json:"reviewed"`
}

// describe says where a team learning came from, in the block's words.
func (t *TeamFrom) describe() string {
	var b strings.Builder
	b.WriteString("team " + t.Name)
	if t.Author != "" {
		b.WriteString(", added by " + neutralise(t.Author))
	}
	switch {
	case t.PR != "":
		kind := "pull request "
		if strings.HasPrefix(t.PR, "!") {
			kind = "merge request "
		}
		b.WriteString(" via " + kind + t.PR)
	case t.Branch != "":
		b.WriteString(" via branch " + neutralise(t.Branch))
	}
	if t.Reviewed {
		b.WriteString(", reviewed")
		if t.By != "" {
			b.WriteString(" by " + neutralise(t.By))
		}
	} else {
		b.WriteString(", not reviewed")
	}
	return b.String()
}

// teamIndexOptions open a team's index as a hook opens the personal one: a short lock
// wait, a bounded catch-up, no build (team add and team sync build it).
var teamIndexOptions = index.Options{LockTimeout: 250 * time.Millisecond, CatchUpLimit: 500, NoBuild: true}

// teamCandidates is how many of a team's best matches recall weighs: half the personal
// memory's dozen. At most recall.max_learnings are injected from all memories together, and
// each hit costs its explanation, its review and its id check (with 12 a team's share of a
// recall at 10,000 learnings was 3 ms of CPU, as much as the personal memory's).
const teamCandidates = candidates / 2

// reviewCatchUp bounds the commits a recall reads to bring a team's review cache to its
// HEAD when something other than reflect moved it; past that its learnings stay held back
// until the next reflect team sync.
const reviewCatchUp = 200

// teamSearch is the teams' share of a recall, started before the personal index is searched
// so that on two cores both run at once.
type teamSearch struct {
	wg    sync.WaitGroup
	found []teamFound
}

type teamFound struct {
	cands      []Candidate
	held       map[string]string
	superseded map[string]string
}

// startTeams searches every team memory with the same words and scope, each in its own
// goroutine: each team's index is searched and its hits ranked with that index's own
// weights (an idf is a property of one collection), so Final means the same thing in each
// and the union ranks as one. A team that cannot be read adds nothing and never fails the
// recall. It returns nil when the user reads no team.
func startTeams(ctx context.Context, repo *gitstore.Repo, req Request, res *Result, scope []string, cfg config.Recall) *teamSearch {
	names := team.Names(repo)
	if len(names) == 0 {
		return nil
	}
	ts := &teamSearch{found: make([]teamFound, len(names))}
	for i, name := range names {
		ts.wg.Add(1)
		go func() {
			defer ts.wg.Done()
			f := &ts.found[i]
			f.cands, f.held, f.superseded = searchTeam(ctx, repo, name, req, res.Topics, res.Project, scope, cfg)
		}()
	}
	return ts
}

// merge waits for the teams and adds their candidates to res, which holds the personal
// ones. It returns why candidates are held back: a team learning not reviewed, a personal
// learning a reviewed team learning supersedes. A learning in both memories (a promotion)
// is kept once, as the user's own.
func (ts *teamSearch) merge(res *Result) map[string]string {
	if ts == nil {
		return nil
	}
	ts.wg.Wait()
	held := map[string]string{}
	have := map[string]bool{}
	for _, c := range res.Candidates {
		have[c.ID] = true
	}
	for _, f := range ts.found {
		for _, c := range f.cands {
			if have[c.ID] {
				continue
			}
			have[c.ID] = true
			res.Candidates = append(res.Candidates, c)
			if why := f.held[c.ID]; why != "" {
				held[c.ID] = why
			}
		}
	}
	for _, f := range ts.found {
		for _, c := range res.Candidates {
			if by := f.superseded[c.ID]; by != "" {
				held[c.ID] = "superseded by " + by
			}
		}
	}
	sort.SliceStable(res.Candidates, func(i, j int) bool { return res.Candidates[i].Final > res.Candidates[j].Final })
	return held
}

// searchTeam runs the query against one team's index.
func searchTeam(ctx context.Context, repo *gitstore.Repo, name string, req Request, topics []Topic, project string, scope []string, cfg config.Recall) ([]Candidate, map[string]string, map[string]string) {
	tr, err := team.Open(repo, name)
	if err != nil {
		return nil, nil, nil
	}
	defer tr.Close()
	if !team.Fresh(tr) {
		team.Refresh(tr, reviewCatchUp)
	}
	superseded := map[string]string{}
	for old, by := range team.Superseded(tr) {
		superseded[old] = fmt.Sprintf("team %s's %s (reviewed)", name, by)
	}
	ix, err := index.Open(ctx, tr, teamIndexOptions)
	if err != nil {
		return nil, nil, superseded
	}
	defer ix.Close()
	found, err := search(ctx, ix, topics, scope, teamCandidates)
	if err != nil {
		return nil, nil, superseded
	}
	cands := assessAll(found, topics, cfg)
	if len(cands) == 0 {
		return nil, nil, superseded
	}
	held := map[string]string{}
	reviews := team.NewReader(tr)
	for i := range cands {
		h := &cands[i]
		rv, ok := reviews.Of(h.ID)
		tf := &TeamFrom{Name: name}
		if ok {
			tf.Author, tf.By, tf.PR, tf.Branch, tf.Reviewed = rv.Author, rv.By, rv.PR, rv.Branch, rv.Reviewed
		}
		h.From = From{Sync: true, Author: tf.Author, Reviewed: tf.By, Team: tf}
		switch {
		case !tf.Reviewed:
			held[h.ID] = "team " + name + ": not reviewed (its promotion is not merged into the team's main; reflect team pending lists it)"
		default:
			// a search each: asked, as of the personal memory's, only of those that qualify
			if _, _, q := DefaultGates().qualify(h, cfg); !q {
				break
			}
			if n, err := ix.Claimed(ctx, h.ID); err == nil && n > 1 {
				held[h.ID] = fmt.Sprintf("team %s: %d files claim this id", name, n)
			}
		}
	}
	return rank(cands, project, req.Now, cfg), held, superseded
}
