// Package teamindex keeps the search index of each team memory (package team) up to date and
// searches it: adding a team clones it and builds its index, syncing one pulls it and catches
// its index up, and `reflect search --team` searches them all. It is apart from package team
// because the index is bleve's, which only reflect-engine links: the lean reflect lists,
// renames, promotes and shows team learnings without it.
package teamindex

import (
	"context"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/index"
	memsync "github.com/reflect-memory/reflect/sync"
	"github.com/reflect-memory/reflect/team"
)

// Add adds the team memory at url as name (team.Add) and builds its index.
func Add(ctx context.Context, personal *gitstore.Repo, name, url string) (*team.Team, *memsync.Result, error) {
	t, res, err := team.Add(ctx, personal, name, url)
	if err != nil {
		return t, res, err
	}
	r, err := team.Open(personal, name)
	if err != nil {
		return t, res, err
	}
	defer r.Close()
	return t, res, build(ctx, r)
}

// Sync pulls team name (team.Pull), then catches its index up to what it pulled.
func Sync(ctx context.Context, personal *gitstore.Repo, name string) (*memsync.Result, error) {
	res, err := team.Pull(ctx, personal, name)
	if err != nil {
		return res, err
	}
	r, err := team.Open(personal, name)
	if err != nil {
		return res, err
	}
	defer r.Close()
	return res, build(ctx, r)
}

// build opens (building or catching up) the team's index.
func build(ctx context.Context, r *gitstore.Repo) error {
	ix, err := index.Open(ctx, r, index.Options{})
	if err != nil {
		return err
	}
	return ix.Close()
}

// Hit is a search hit in a team memory.
type Hit struct {
	index.Hit
	Team     string `json:"team"`
	Reviewed bool   `json:"reviewed"`
}

// Search runs q against every team's index (built when missing: this is for commands), each
// hit marked with its team and whether it is reviewed. A team that cannot be searched is
// skipped and named in skipped.
func Search(ctx context.Context, personal *gitstore.Repo, q index.Query) (hits []Hit, skipped []string) {
	for _, name := range team.Names(personal) {
		tr, err := team.Open(personal, name)
		if err != nil {
			skipped = append(skipped, name)
			continue
		}
		if !team.Fresh(tr) {
			team.Refresh(tr, 0)
		}
		ix, err := index.Open(ctx, tr, index.Options{LockTimeout: personal.Config().Git.LockTimeout.Std()}) // this machine's setting, not the team's shared file
		if err != nil {
			tr.Close()
			skipped = append(skipped, name)
			continue
		}
		res, err := ix.Search(ctx, q)
		if err == nil {
			rd := team.NewReader(tr)
			for _, h := range res.Hits {
				rv, _ := rd.Of(h.ID)
				hits = append(hits, Hit{Hit: h, Team: name, Reviewed: rv.Reviewed})
			}
		} else {
			skipped = append(skipped, name)
		}
		ix.Close()
		tr.Close()
	}
	return hits, skipped
}
