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

// Retry moves failed entries back to the queue in one commit: the one id names (a unique
// prefix is enough), or all of them. It returns the entries moved.
func Retry(ctx context.Context, r *gitstore.Repo, id string, all bool, now time.Time) ([]*Entry, error) {
	var moved []*Entry
	_, err := r.Update(ctx, func(tx *gitstore.Tx) (string, error) {
		moved = nil // fn runs again if git moved the branch meanwhile
		items, _, err := listTx(tx)
		if err != nil {
			return "", err
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
				return "", err
			}
			failed = []Item{it}
		}
		for _, it := range failed {
			e := it.Entry
			e.Error, e.Attempts, e.Updated = "", 0, now.UTC().Truncate(time.Second)
			data, err := e.Render()
			if err != nil {
				return "", err
			}
			tx.Delete(it.Path)
			tx.Write(Path(e.ID), data)
			moved = append(moved, e)
		}
		if len(moved) == 0 {
			return "", nil // nothing to commit
		}
		if len(moved) == 1 {
			return fmt.Sprintf("queue: retry %s (%s session %s)", moved[0].ID, moved[0].Harness, Short(moved[0].Session)), nil
		}
		return fmt.Sprintf("queue: retry %d failed entries", len(moved)), nil
	})
	return moved, err
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
