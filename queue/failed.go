package queue

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/reflect-memory/reflect/gitstore"
)

// FailedPath is where an entry the drain gave up on is kept, with its error.
func FailedPath(id string) string { return FailedDir + "/" + id + ".json" }

// FailTx moves a pending entry to queue/failed with the reason, inside a write.
func FailTx(tx *gitstore.Tx, e *Entry, reason string, attempts int, now time.Time) error {
	e.Error, e.Attempts, e.Updated = reason, attempts, now.UTC().Truncate(time.Second)
	data, err := e.Render()
	if err != nil {
		return err
	}
	tx.Write(FailedPath(e.ID), data)
	tx.Delete(Path(e.ID))
	return nil
}

// Author is who a commit names as its author.
type Author struct{ Name, Email string }

// Retry moves failed entries back to the queue: the one id names (a unique prefix is enough),
// or all of them. It returns the entries moved. An entry another author pushed (by says who,
// as this machine recorded it arriving) moves in a commit authored by them, one per author,
// this user's own in one commit of theirs: a clone that first sees the entry back in the
// queue takes its author from the commit that moved it, and must not take another's
// capture for this user's. by may be nil: every entry is this user's.
func Retry(ctx context.Context, r *gitstore.Repo, id string, all bool, now time.Time, by func(entryID string) (Author, bool)) ([]*Entry, error) {
	items, _, err := List(r)
	if err != nil {
		return nil, err
	}
	var failed []Item
	for _, it := range items {
		if it.Failed {
			failed = append(failed, it)
		}
	}
	if !all {
		it, err := Find(failed, id)
		if err != nil {
			return nil, err
		}
		failed = []Item{it}
	}
	type group struct {
		author *Author
		ids    map[string]bool
	}
	var groups []*group // this user's first, then each other author's as first met
	type whose struct {
		author Author
		other  bool // the user's own entries are one group, whatever by says of their author
	}
	index := map[whose]*group{}
	for _, it := range failed {
		key, other := Author{}, false
		if by != nil {
			key, other = by(it.Entry.ID)
		}
		if !other {
			key = Author{}
		}
		g := index[whose{key, other}]
		if g == nil {
			g = &group{ids: map[string]bool{}}
			if other {
				g.author = &key
			}
			index[whose{key, other}] = g
			if other {
				groups = append(groups, g)
			} else {
				groups = append([]*group{g}, groups...)
			}
		}
		g.ids[it.Entry.ID] = true
	}
	var moved []*Entry
	for _, g := range groups {
		var these []*Entry
		_, err := r.Update(ctx, func(tx *gitstore.Tx) (string, error) {
			these = nil // fn runs again if git moved the branch meanwhile
			items, _, err := listTx(tx)
			if err != nil {
				return "", err
			}
			for _, it := range items {
				if !it.Failed || !g.ids[it.Entry.ID] {
					continue
				}
				e := it.Entry
				e.Error, e.Attempts, e.Updated = "", 0, now.UTC().Truncate(time.Second)
				data, err := e.Render()
				if err != nil {
					return "", err
				}
				tx.Delete(it.Path)
				tx.Write(Path(e.ID), data)
				these = append(these, e)
			}
			switch {
			case len(these) == 0:
				return "", nil // nothing to commit: retried meanwhile
			case g.author != nil:
				tx.AuthoredBy(g.author.Name, g.author.Email)
			}
			if len(these) == 1 {
				return fmt.Sprintf("queue: retry %s (%s session %s)", these[0].ID, these[0].Harness, Short(these[0].Session)), nil
			}
			return fmt.Sprintf("queue: retry %d failed entries", len(these)), nil
		})
		if err != nil {
			return moved, err
		}
		moved = append(moved, these...)
	}
	return moved, nil
}

// Waiting reports whether the work tree shows a capture waiting for the drain
// (queue/*.json): what a session start asks before starting a drain, without reading git's
// objects. Count reads HEAD's tree, which in a new process first loads the pack indexes:
// 2.3 ms of a SessionStart hook at 10,000 learnings, for a yes or no. The work tree agrees
// with HEAD after every reflect command, and the drain it starts reads HEAD itself.
func Waiting(r *gitstore.Repo) bool {
	des, err := os.ReadDir(filepath.Join(r.Root(), filepath.FromSlash(Dir)))
	if err != nil {
		return false
	}
	for _, d := range des {
		if d.Type().IsRegular() && strings.HasSuffix(d.Name(), ".json") {
			return true
		}
	}
	return false
}

// Count counts the captures in HEAD's queue without reading one: those waiting for the
// drain, and those it gave up on (queue/failed/).
func Count(r *gitstore.Repo) (pending, failed int, err error) {
	files, err := r.Walk(Dir)
	if err != nil {
		return 0, 0, err
	}
	for _, f := range files {
		switch {
		case strings.HasPrefix(f.Path, FailedDir+"/"):
			failed++
		case strings.HasSuffix(f.Path, ".json"):
			pending++
		}
	}
	return pending, failed, nil
}
