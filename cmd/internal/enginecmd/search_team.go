package enginecmd

import (
	"context"
	"fmt"
	"sort"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/index"
	"github.com/reflect-memory/reflect/team/teamindex"
)

// addTeamHits adds the team memories' hits to res (a learning you hold too shows once, as
// yours), ordered by score and cut to the query's limit, and says which memory each hit's
// path is in. Team paths are marked with their team, so that a team's file never reads as
// one of yours.
func (a *app) addTeamHits(ctx context.Context, r *gitstore.Repo, q index.Query, res *index.Result) map[string]string {
	memory := map[string]string{}
	have := map[string]bool{}
	for _, h := range res.Hits {
		memory[h.Path], have[h.ID] = "yours", true
	}
	hits, skipped := teamindex.Search(ctx, r, q)
	for _, name := range skipped {
		fmt.Fprintf(a.Stderr, "reflect: team %s could not be searched (reflect team sync %s)\n", name, name)
	}
	for _, th := range hits {
		if have[th.ID] {
			continue
		}
		have[th.ID] = true
		th.Path = "teams/" + th.Team + ":" + th.Path
		state := "not reviewed"
		if th.Reviewed {
			state = "reviewed"
		}
		memory[th.Path] = "team " + th.Team + " (" + state + ")"
		res.Hits = append(res.Hits, th.Hit)
		res.Total++
	}
	sort.SliceStable(res.Hits, func(i, j int) bool { return res.Hits[i].Score > res.Hits[j].Score })
	if len(res.Hits) > q.Limit {
		res.Hits = res.Hits[:q.Limit]
	}
	return memory
}
