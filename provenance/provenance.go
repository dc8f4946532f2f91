// Package provenance remembers, on this machine only, which learnings (and queue entries, whose
// learnings the drain records as theirs) arrived by sync and from whom: the commit that gave
// each its current version, that commit's author, the machine the learning says it was
// captured on, and who reviewed it (a merge by someone else). sync records what comes in; recall reads it to say where each learning it injects
// came from and to hold back unreviewed ones from other authors. A learning with no record
// was written here. The records live under .git/reflect/provenance/, never committed: what a
// remote holds cannot claim to be this user's own note. It never reads the learnings'
// files, and it never decides what is injected.
package provenance

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/internal/lockfile"
	"github.com/reflect-memory/reflect/queue"
)

// Record is where one learning's current version came from.
type Record struct {
	Path    string    `json:"path"`
	Blob    string    `json:"blob"`             // the version that arrived
	Commit  string    `json:"commit,omitempty"` // the commit that made it; empty when the walk did not reach it
	Author  string    `json:"author,omitempty"`
	Email   string    `json:"email,omitempty"`
	When    time.Time `json:"when,omitzero"`
	Machine string    `json:"machine,omitempty"` // the learning's source.machine: what it claims
	// Reviewed names who looked at it: the author of the merge that brought it in (someone
	// other than its author), or "you" once this user edited it here.
	Reviewed string    `json:"reviewed,omitempty"`
	Arrived  time.Time `json:"arrived"`
}

// Dir is the records' folder under the repository's state directory.
const Dir = "provenance"

// Records are kept in buckets named by the last two characters of the learning's id (the
// random end of a ULID: up to 1,024 small files), so that recall reads one small file for
// each learning it weighs instead of one file for the whole memory (a clone of 50,000
// learnings makes ~2,000 B a bucket against ~8 MB in one file).
func bucket(id string) string {
	if len(id) < 2 {
		return Dir + "/_.json"
	}
	return Dir + "/" + strings.ToLower(id[len(id)-2:]) + ".json"
}

func readBucket(r *gitstore.Repo, name string) (map[string]Record, error) {
	data, err := r.ReadState(name)
	if err != nil || len(data) == 0 {
		return map[string]Record{}, err
	}
	m := map[string]Record{}
	if err := json.Unmarshal(data, &m); err != nil {
		return map[string]Record{}, fmt.Errorf("read %s: %w", name, err)
	}
	return m, nil
}

// Of returns the record of learning id: ok is false for a learning written on this machine.
func Of(r *gitstore.Repo, id string) (Record, bool, error) {
	m, err := readBucket(r, bucket(id))
	rec, ok := m[id]
	return rec, ok, err
}

// OtherAuthor is the record of id (a learning's or a queue entry's) when another author than
// this machine's brought it. A record that does not read names no author (an empty Email):
// who wrote it is not known, so it is not known to be this user.
func OtherAuthor(r *gitstore.Repo, id string) (Record, bool) {
	rec, ok, err := Of(r, id)
	if err != nil {
		return Record{}, true
	}
	if !ok || rec.Email != "" && strings.EqualFold(rec.Email, r.Identity()) {
		return Record{}, false
	}
	return rec, true
}

// Unreviewed reports whether learning id is another author's (OtherAuthor, a torn record
// included) that nobody reviewed. A commit this user makes without choosing that learning —
// the drain or memory_remember counting a lesson seen again, reflect fmt — must leave it as
// it is: sync and Ensure take the author of the commit that made a version for its writer, so
// on every other clone it would read as this user's own, injected unreviewed.
func Unreviewed(r *gitstore.Repo, id string) bool {
	rec, other := OtherAuthor(r, id)
	return other && rec.Reviewed == ""
}

// CapturedBy says who captured a queue entry another author pushed (OtherAuthor), for a
// commit that moves it (queue.Retry) to name as its author.
func CapturedBy(r *gitstore.Repo) func(entryID string) (queue.Author, bool) {
	return func(id string) (queue.Author, bool) {
		rec, ok := OtherAuthor(r, id)
		return queue.Author{Name: cmp.Or(rec.Author, "unknown"), Email: cmp.Or(rec.Email, UnknownAuthor)}, ok
	}
}

// Save records arrivals, keyed by learning id (a later arrival of the same learning replaces
// the earlier record), and adds their authors to the memory's list. Its reads and rewrites of
// the buckets are one writer's at a time (writeLock): a sync and a drain, which a session
// start sets going together, each record what they bring.
func Save(r *gitstore.Repo, recs map[string]Record) error {
	unlock, err := lockfile.Take(context.Background(), filepath.Join(r.StateDir(), "locks", writeLock), writeWait)
	if err != nil {
		return fmt.Errorf("record where learnings came from: %w", err)
	}
	defer unlock()
	byBucket := map[string][]string{}
	for id := range recs {
		byBucket[bucket(id)] = append(byBucket[bucket(id)], id)
	}
	names := make([]string, 0, len(byBucket))
	for name := range byBucket {
		names = append(names, name)
	}
	sort.Strings(names)
	var authors []string
	for _, name := range names {
		m, err := readBucket(r, name)
		if err != nil {
			m = map[string]Record{} // a torn bucket is rewritten with what arrives now
		}
		for _, id := range byBucket[name] {
			m[id] = recs[id]
			e := recs[id].Email
			if e == "" {
				e = UnknownAuthor // the walk did not reach its commit: someone, not known to be this user
			}
			authors = append(authors, e)
		}
		if err := write(r, name, m); err != nil {
			return err
		}
	}
	return addAuthors(r, authors)
}

// writeLock is the lock file Save holds (Ensure holds another while it rebuilds, then calls
// Save); writeWait bounds the wait for it.
const (
	writeLock = "provenance-write"
	writeWait = 10 * time.Second
)

// MarkReviewed records that by (a person) reviewed learning id, when it arrived by sync.
func MarkReviewed(r *gitstore.Repo, id, by string) error {
	unlock, err := lockfile.Take(context.Background(), filepath.Join(r.StateDir(), "locks", writeLock), writeWait)
	if err != nil {
		return fmt.Errorf("record a review: %w", err)
	}
	defer unlock()
	name := bucket(id)
	m, err := readBucket(r, name)
	if err != nil {
		return err
	}
	rec, ok := m[id]
	if !ok {
		return nil
	}
	rec.Reviewed = by
	m[id] = rec
	return write(r, name, m)
}

func write(r *gitstore.Repo, name string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return r.WriteState(name, data)
}

const authorsFile = Dir + "/authors.json"

// UnknownAuthor stands in Authors for learnings whose commit a sync's walk did not reach.
const UnknownAuthor = "(unknown)"

// Authors lists the e-mails of every author whose learnings arrived by sync.
func Authors(r *gitstore.Repo) []string {
	data, _ := r.ReadState(authorsFile)
	var out []string
	json.Unmarshal(data, &out)
	return out
}

func addAuthors(r *gitstore.Repo, emails []string) error {
	all := Authors(r)
	n := len(all)
	for _, e := range emails {
		if !slices.Contains(all, e) {
			all = append(all, e)
		}
	}
	if len(all) == n {
		return nil
	}
	sort.Strings(all)
	return write(r, authorsFile, all)
}

// builtFile marks records that are complete for this clone: kept by sync since it was made,
// or rebuilt from history.
const builtFile = Dir + "/built"

// Built reports whether the records are complete for this clone. When they are not (a
// repository from before they were kept, or a deleted .git/reflect/provenance), recall
// cannot tell what arrived by sync, and says so.
func Built(r *gitstore.Repo) bool {
	data, err := r.ReadState(builtFile)
	return err == nil && data != nil
}

// The rebuild reads at most historyLimit commits and for at most historyBudget, whichever
// comes first: at 100,000 learnings in one folder each commit's diff decodes that folder's
// tree (~4 MB), so a walk of 20,000 commits took minutes and gigabytes. A learning the walk
// does not reach reads as written here, as one this machine's author wrote does: a memory
// that old was this user's before the records were kept, and holding all of it back
// (recall.from_others = auto) would be worse than not naming a few old arrivals.
const (
	historyLimit  = 2_000
	historyBudget = 2 * time.Second
)

// Ensure rebuilds the records from history when they are not complete (see Built): every
// learning whose current version a commit within reach made, by another author than this
// machine's, is recorded as arrived — the history cannot say which of this author's
// commits another laptop made, so those read as written here. One process rebuilds; any
// other that asks meanwhile goes on without waiting (recall says the records are not built
// yet). It runs in commands, never in a hook.
func Ensure(r *gitstore.Repo, now time.Time) error {
	if Built(r) {
		return nil
	}
	unlock, err := lockfile.Take(context.Background(), filepath.Join(r.StateDir(), "locks", "provenance"), 0)
	if err != nil {
		if errors.Is(err, lockfile.ErrHeld) {
			return nil // another process is rebuilding them
		}
		return err
	}
	defer unlock()
	if Built(r) { // built while this process waited for the lock
		return nil
	}
	head, err := r.Head()
	if err != nil {
		return err
	}
	files, err := r.Walk("learnings")
	if err != nil {
		return err
	}
	want := map[string]plumbing.Hash{}
	for _, f := range files {
		if strings.HasSuffix(f.Path, ".md") {
			want[f.Path] = f.ID
		}
	}
	// and the queue's entries, which the drain makes learnings of: keyed by the id each
	// claims, as sync records them
	entries, err := r.Walk(queue.Dir)
	if err != nil {
		return err
	}
	ids := map[string]string{} // path of an entry → its id
	for _, f := range entries {
		if !strings.HasSuffix(f.Path, ".json") {
			continue
		}
		data, err := r.ReadBlob(f.ID)
		if err != nil {
			return err
		}
		if e, err := queue.Parse(f.Path, data); err == nil {
			want[f.Path], ids[f.Path] = f.ID, e.ID
		}
	}
	recs := map[string]Record{}
	if len(want) > 0 && !head.IsZero() {
		deadline := time.Now().Add(historyBudget)
		late := func(plumbing.Hash) bool { return time.Now().After(deadline) }
		origins, err := r.Origins(head, want, late, historyLimit)
		if err != nil {
			return err
		}
		me := r.Identity()
		for p, blob := range want {
			o, found := origins[p]
			if !found || strings.EqualFold(o.Email, me) {
				continue
			}
			id, entry := ids[p]
			if !entry {
				id = strings.TrimSuffix(p[strings.LastIndexByte(p, '/')+1:], ".md")
			}
			rec := Record{Path: p, Blob: blob.String(), Arrived: now.UTC(),
				Commit: o.Commit.String(), Author: o.Author, Email: o.Email, When: o.When.UTC()}
			if o.MergedBy != "" && o.MergedBy != o.Email {
				rec.Reviewed = o.MergedBy
			}
			recs[id] = rec
		}
	}
	if err := Save(r, recs); err != nil {
		return err
	}
	return r.WriteState(builtFile, []byte(now.UTC().Format(time.RFC3339)+"\n"))
}

// MarkBuilt records that this clone's records are complete: a new memory has none to build.
func MarkBuilt(r *gitstore.Repo, now time.Time) error {
	return r.WriteState(builtFile, []byte(now.UTC().Format(time.RFC3339)+"\n"))
}
