package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/internal/lockfile"
	"github.com/reflect-memory/reflect/queue"
)

// A capture its hook gives up on at the deadline (a transcript too long to read in time, a
// repository held through it) is not lost: the hook saves it under LateDir and starts
// `reflect internal late-hook FILE`, which runs it again with LateDeadline. That process keeps
// the file when it gives up too, and a drain runs again what no late-hook finished
// (AbandonedLate); every capture so ends up committed, or logged as failed.

// LateDir holds the captures handed on at their hook's deadline (local state: removed once run,
// swept by the drain with the sessions' state).
const LateDir = "state/late"

// LateDeadline bounds a capture run again after its hook gave up: a session of tens of
// megabytes read in full (a 30 MB transcript with two 4.5 MB subagents took 650 ms against
// the hook's 500 ms, on two cores, every time it was tried).
const LateDeadline = 30 * time.Second

// LateAbandoned is how long a saved capture is left to the late-hook started on it, which ends
// within LateDeadline of its start. An older one was never read (the process could not be
// started, the machine slept or went down), or its late-hook gave up too: a drain runs it
// again.
const LateAbandoned = 2 * time.Minute

// LateKept is how long a capture that does not complete is run again; then it is dropped, with
// an error in the log. The session's marks were not advanced by it, so a later capture of the
// same session still takes in what it held.
const LateKept = 24 * time.Hour

// Late is a capture handed on at its hook's deadline, as saved under LateDir.
type Late struct {
	Harness string    `json:"harness"`         // the hook's command line: reflect hook HARNESS [EVENT]
	Event   string    `json:"event,omitempty"` // "" when the payload names it
	Saved   time.Time `json:"saved"`
	Payload []byte    `json:"payload"` // the hook's standard input
}

// Outcome is what became of a hook's work, for a caller that runs a capture again (RunLate):
// Done, its handler ran to its end without an error and within its deadline.
type Outcome struct {
	Done bool
}

// runLate saves the hook's capture under LateDir and starts `reflect internal late-hook` on
// it, detached; it says what it did, for last-event.json. A process that could not be started
// leaves the file to the drain (AbandonedLate).
func (e *event) runLate(o Options, payload []byte) string {
	now := time.Now()
	name := fmt.Sprintf("%s-%d.json", strings.TrimSuffix(queue.StateName(e.harness, e.SessionID), ".json"), now.UnixNano())
	data, err := json.Marshal(Late{Harness: o.Harness, Event: o.Event, Saved: now.UTC(), Payload: payload})
	if err == nil {
		err = e.repo.WriteState(LateDir+"/"+name, data)
	}
	if err != nil {
		e.log.Error("capture lost to the hook's deadline: it could not be saved", "event", e.Event, "session", e.SessionID, "err", err)
		return "not handed on: " + err.Error()
	}
	e.background("internal", "late-hook", LateDir+"/"+name)
	e.log.Warn("capture passed the hook's deadline: handed to a background process", "event", e.Event, "session", e.SessionID, "file", name)
	return "handed to a background process"
}

// LateName checks that file names a file of LateDir (as `internal late-hook` is given it) and
// returns its name there.
func LateName(file string) (string, error) {
	name, ok := strings.CutPrefix(filepath.ToSlash(file), LateDir+"/")
	if !ok || name == "" || strings.Contains(name, "/") || name == "." || name == ".." {
		return "", fmt.Errorf("%s is not a file of %s", file, LateDir)
	}
	return name, nil
}

// readLate reads the capture saved as name under LateDir.
func readLate(r *gitstore.Repo, name string) (Late, error) {
	var l Late
	data, err := r.ReadState(LateDir + "/" + name)
	switch {
	case err != nil:
		return l, err
	case data == nil:
		return l, fmt.Errorf("%s/%s: %w", LateDir, name, os.ErrNotExist)
	}
	if err := json.Unmarshal(data, &l); err != nil {
		return l, fmt.Errorf("%s/%s: not a capture handed on: %w", LateDir, name, err)
	}
	if !KnownHost(l.Harness) || len(l.Payload) == 0 {
		return l, fmt.Errorf("%s/%s: not a capture handed on (harness %q, %d bytes)", LateDir, name, l.Harness, len(l.Payload))
	}
	return l, nil
}

// lateDir is LateDir on this machine.
func lateDir(r *gitstore.Repo) string {
	return filepath.Join(r.StateDir(), filepath.FromSlash(LateDir))
}

// removeLate removes the capture saved as name; one already gone is no error.
func removeLate(r *gitstore.Repo, name string) error {
	return r.RemoveVolatileState(LateDir + "/" + name)
}

// claimLate marks the capture saved as name as being run now (its time of change), so that
// AbandonedLate leaves it alone for LateAbandoned.
func claimLate(r *gitstore.Repo, name string, now time.Time) error {
	return os.Chtimes(filepath.Join(lateDir(r), name), now, now)
}

// AbandonedLate lists, oldest first, the captures under LateDir that no late-hook is running:
// unchanged for LateAbandoned.
func AbandonedLate(r *gitstore.Repo, now time.Time) ([]string, error) {
	des, err := os.ReadDir(lateDir(r))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	type aged struct {
		name string
		at   time.Time
	}
	var old []aged
	for _, d := range des {
		if !d.Type().IsRegular() || !strings.HasSuffix(d.Name(), ".json") {
			continue
		}
		if fi, err := d.Info(); err == nil && fi.ModTime().Before(now.Add(-LateAbandoned)) {
			old = append(old, aged{d.Name(), fi.ModTime()})
		}
	}
	slices.SortFunc(old, func(a, b aged) int { return a.at.Compare(b.at) })
	names := make([]string, 0, len(old))
	for _, a := range old {
		names = append(names, a.name)
	}
	return names, nil
}

// LateSaved counts the captures handed on at their hook's deadline and not yet run to their
// end (reflect status shows them; a session start with any starts a drain, which runs again
// those no late-hook finished).
func LateSaved(r *gitstore.Repo) int {
	des, err := os.ReadDir(lateDir(r))
	if err != nil {
		return 0
	}
	n := 0
	for _, d := range des {
		if d.Type().IsRegular() && strings.HasSuffix(d.Name(), ".json") {
			n++
		}
	}
	return n
}

// RunLate runs again, with run, the capture saved as name under LateDir, and removes it once
// done. One that does not complete (it gave up at its deadline again, the disk was full) is
// kept, for a drain to run again, until it is LateKept old; then, or when its file cannot be
// read, it is dropped. Both are logged to the memory's log, where the hooks log. A capture
// another process already ran (its file gone) is no error.
func RunLate(r *gitstore.Repo, name string, run func(Late) Outcome) error {
	// one process at a time runs a capture: two drains a session start each set going, or a
	// late-hook started after a machine slept past LateAbandoned while a drain took it up
	lock := filepath.Join(r.StateDir(), "locks", "late", name)
	unlock, err := lockfile.Take(context.Background(), lock, 0)
	if errors.Is(err, lockfile.ErrHeld) {
		return nil
	} else if err != nil {
		return err
	}
	defer func() {
		os.Remove(lock)
		unlock()
	}()
	log := openLogAt(filepath.Join(r.StateDir(), "log"), false)
	l, err := readLate(r, name)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		log.Error("a capture handed on could not be read; dropped", "file", name, "err", err)
		return errors.Join(err, removeLate(r, name))
	}
	if err := claimLate(r, name, time.Now()); err != nil {
		return nil // gone meanwhile: another process ran it
	}
	if run(l).Done {
		return removeLate(r, name)
	}
	if time.Since(l.Saved) < LateKept {
		log.Warn("a capture handed on did not complete; kept for the next drain", "file", name, "saved", l.Saved)
		return nil
	}
	log.Error("a capture handed on did not complete within a day; dropped (a later capture of the session takes in what it held)", "file", name, "saved", l.Saved)
	if err := removeLate(r, name); err != nil {
		return err
	}
	return fmt.Errorf("the capture handed on in %s/%s did not complete within %v; dropped", LateDir, name, LateKept)
}
