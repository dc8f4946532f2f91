// Package team owns the team memories beside a user's personal one: where their clones live
// (the personal repository's .git/reflect/teams/NAME, never its work tree), adding,
// listing, renaming and removing them (adding and syncing, which build a team's search index, are
// package teamindex's), which of their learnings a person reviewed
// (read from the team's git history: a merge by someone who wrote none of it, or a commit
// that someone other than its author committed), and promoting a personal learning to a team through a branch that
// a pull request merges. A team memory is written by others, so nothing in it chooses a
// program, path or endpoint here: its settings load under the same trust boundary as a
// synced personal memory, and promotions push only to the URL the user gave `team add`.
package team

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/internal/lazyregexp"
	"github.com/reflect-memory/reflect/learnings"
	memsync "github.com/reflect-memory/reflect/sync"
)

// Team is one team memory this user reads.
type Team struct {
	Name string `json:"name"`
	Dir  string `json:"dir"`
	URL  string `json:"url"` // its credentials redacted (memsync.RedactURL): it is for printing
	Head string `json:"head,omitempty"`
}

// Errors the team commands return.
var (
	ErrUnknown = errors.New("no such team")
	ErrExists  = errors.New("a team of that name exists")
	ErrName    = errors.New("bad team name")
)

var validName = lazyregexp.New(`^[a-z0-9][a-z0-9._-]{0,39}$`)

// CheckName refuses a name that could not be a folder of its own (a path, "..", spaces,
// upper case that two file systems would read differently).
func CheckName(name string) error {
	if !validName.MatchString(name) {
		return fmt.Errorf("%w %q: use 1–40 lower-case letters, digits, '.', '_' or '-', starting with a letter or digit", ErrName, name)
	}
	return nil
}

// Root is the folder of personal's team clones: inside its .git, where git never looks, so a
// team memory is never part of the personal repository's tree and moves with it.
func Root(personal *gitstore.Repo) string { return filepath.Join(personal.StateDir(), "teams") }

// Dir is team name's clone.
func Dir(personal *gitstore.Repo, name string) string { return filepath.Join(Root(personal), name) }

// List returns the teams, by name. A folder that is not a memory is skipped.
func List(personal *gitstore.Repo) ([]Team, error) {
	names, err := folders(personal)
	if err != nil {
		return nil, err
	}
	var out []Team
	for _, name := range names {
		if !isClone(Dir(personal, name)) {
			continue
		}
		r, err := gitstore.Open(Dir(personal, name))
		if err != nil {
			continue
		}
		t := Team{Name: name, Dir: r.Root(), URL: memsync.RedactURL(r.Remote("origin"))}
		if h, err := r.Head(); err == nil && !h.IsZero() {
			t.Head = h.String()
		}
		r.Close()
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Names lists the teams' names from their folders alone (what a recall needs, cheaply): the
// Folders that hold a clone.
func Names(personal *gitstore.Repo) []string {
	var out []string
	for _, name := range Folders(personal) {
		if isClone(Dir(personal, name)) {
			out = append(out, name)
		}
	}
	return out
}

// Folders lists the folders under Root named as a team may be, clones or not (doctor checks
// each: one that is not a clone is what a failed add or a write racing a removal left).
func Folders(personal *gitstore.Repo) []string {
	names, _ := folders(personal)
	return names
}

// folders is Folders, with the error of a Root that exists but cannot be read.
func folders(personal *gitstore.Repo) ([]string, error) {
	entries, err := os.ReadDir(Root(personal))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && CheckName(e.Name()) == nil {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// isClone reports whether dir holds a clone. A recall that reads a team while it is removed
// or renamed may write its state after, at the old path, and so make a folder of state files
// alone (gitstore creates a state file's folders): that is no team, and is not listed, opened
// or kept from being added.
func isClone(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, ".git", "HEAD"))
	return err == nil
}

// clear makes way at dir for a team: a folder left there by a write racing a removal or a
// rename (isClone) is removed; a clone is ErrExists.
func clear(dir, name string) error {
	if _, err := os.Stat(dir); err != nil {
		return nil
	}
	if isClone(dir) {
		return fmt.Errorf("%w: %q is at %s (reflect team remove %s first)", ErrExists, name, dir, name)
	}
	return os.RemoveAll(dir)
}

// Open opens team name's memory.
func Open(personal *gitstore.Repo, name string) (*gitstore.Repo, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	dir := Dir(personal, name)
	if !isClone(dir) {
		return nil, fmt.Errorf("%w %q (reflect team list names them)", ErrUnknown, name)
	}
	return gitstore.Open(dir)
}

// Add clones the team memory at url as name and records who reviewed each of its learnings.
// An empty remote gets a fresh memory, as `reflect init --from` does. Its search index is
// package teamindex's (teamindex.Add builds it).
func Add(ctx context.Context, personal *gitstore.Repo, name, url string) (*Team, *memsync.Result, error) {
	if err := CheckName(name); err != nil {
		return nil, nil, err
	}
	dir := Dir(personal, name)
	if err := clear(dir, name); err != nil {
		return nil, nil, err
	}
	if err := os.MkdirAll(Root(personal), 0o755); err != nil {
		return nil, nil, err
	}
	r, res, err := memsync.Clone(ctx, dir, url, memsync.Options{Follow: true})
	if err != nil {
		if r == nil {
			os.RemoveAll(dir)
		}
		return nil, res, err
	}
	defer r.Close()
	if _, err := Refresh(r, 0); err != nil {
		return nil, res, fmt.Errorf("read who reviewed %s: %w", r.Root(), err)
	}
	t := &Team{Name: name, Dir: r.Root(), URL: memsync.RedactURL(url)}
	if h, err := r.Head(); err == nil && !h.IsZero() {
		t.Head = h.String()
	}
	return t, res, nil
}

// Pull pulls team name (and pushes what its main holds that the remote lacks, which is only
// ever the fresh memory of a first add), then brings its reviews up to date. Its search index
// is package teamindex's: teamindex.Sync catches it up, and the next search or recall that
// opens a stale one does too.
func Pull(ctx context.Context, personal *gitstore.Repo, name string) (*memsync.Result, error) {
	r, err := Open(personal, name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	res, err := memsync.Sync(ctx, r, memsync.Options{Follow: true})
	if err != nil {
		return res, err
	}
	r2, err := gitstore.Open(r.Root()) // sync's new packs are seen by a fresh open
	if err != nil {
		return res, err
	}
	defer r2.Close()
	if _, err := Refresh(r2, 0); err != nil {
		return res, fmt.Errorf("read who reviewed %s: %w", r2.Root(), err)
	}
	return res, nil
}

// Remove deletes team name's clone (what its remote holds stays there).
func Remove(personal *gitstore.Repo, name string) error {
	if err := CheckName(name); err != nil {
		return err
	}
	dir := Dir(personal, name)
	if _, err := os.Stat(dir); err != nil {
		return fmt.Errorf("%w %q", ErrUnknown, name)
	}
	// moved aside first, in one rename: a recall reading the team meanwhile writes at the old
	// path (a folder of state alone, which no team is), not into what is being deleted, which
	// failed as "directory not empty"
	aside := filepath.Join(Root(personal), fmt.Sprintf("%s%s-%d", removedPrefix, name, time.Now().UnixNano()))
	if err := os.Rename(dir, aside); err != nil {
		return err
	}
	for _, old := range Leftovers(personal) {
		if old != aside {
			os.RemoveAll(old) // an earlier removal's, which doctor names while it stays
		}
	}
	var err error
	for try := 0; try < 3; try++ {
		if err = os.RemoveAll(aside); err == nil {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("team %s is removed, but its old clone at %s is not: %w", name, aside, err)
}

// removedPrefix begins the name of a clone Remove moved aside to delete it.
const removedPrefix = ".removed-"

// Leftovers are the clones removals moved aside and failed to delete (each removal's error
// named its own): doctor names them, and the next removal deletes them. A clone moved aside
// less than removalUnderWay ago (by the time in its name) is a removal still deleting it,
// not one left.
func Leftovers(personal *gitstore.Repo) []string {
	entries, _ := os.ReadDir(Root(personal))
	var out []string
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || !strings.HasPrefix(name, removedPrefix) {
			continue
		}
		if ns, err := strconv.ParseInt(name[strings.LastIndex(name, "-")+1:], 10, 64); err == nil && time.Since(time.Unix(0, ns)) < removalUnderWay {
			continue
		}
		out = append(out, filepath.Join(Root(personal), name))
	}
	return out
}

// removalUnderWay is how long after its move aside a clone counts as a removal's under way,
// which deletes it at once (three tries, 50 ms apart).
const removalUnderWay = time.Minute

// Rename gives team old the name new. Its history, reviews and index move with it.
func Rename(personal *gitstore.Repo, old, new string) error {
	if err := CheckName(old); err != nil {
		return err
	}
	if err := CheckName(new); err != nil {
		return err
	}
	if !isClone(Dir(personal, old)) {
		return fmt.Errorf("%w %q", ErrUnknown, old)
	}
	if err := clear(Dir(personal, new), new); err != nil { // a clone there is ErrExists
		return err
	}
	return os.Rename(Dir(personal, old), Dir(personal, new))
}

// Get reads learning id (or a unique prefix of it) from the first team memory that holds it.
func Get(personal *gitstore.Repo, id string) (*learnings.Learning, []byte, error) {
	for _, name := range Names(personal) {
		r, err := Open(personal, name)
		if err != nil {
			continue
		}
		l, raw, err := learnings.Get(r, id)
		r.Close()
		if err == nil {
			return l, raw, nil
		}
	}
	return nil, nil, fmt.Errorf("%w: %s", learnings.ErrUnknownID, id)
}
