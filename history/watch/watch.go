// Package watch lets a Stop hook hand a session's next history import to an importer that is
// already running for that session, rather than start a process at every turn.
//
// Starting a process costs the hook that starts it ~0.5 ms on the 2-core machine (a static Go
// program that starts /bin/true takes 1.79 ms against 1.25 ms; the kernel's exec, which the
// parent waits for, is most of it), about a seventh of a hook's whole time, and the importer's
// own start-up (reflect-engine's 8 ms, bleve's automata included) is spent again at every turn.
// So the importer a session's start (or, failing that, its first Stop) starts stays, watching
// the session (Watch); a Stop pokes it (Poke: one byte appended to a file, one lock tried) and
// starts nothing. The
// importer leaves after history.watch without a poke; at most MaxWatchers stay at once.
//
// Nothing is lost between the two: a poke appends before it looks at the lock, and an
// importer that leaves lets the lock go before its last look at the marker; so a poke it did
// not see finds the lock free, and its hook starts an importer of its own.
//
// It imports nothing itself (the importer passes Watch its import): a Stop hook, which links
// no search engine, pokes through it.
package watch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/reflect-memory/reflect/internal/leave"
	"github.com/reflect-memory/reflect/internal/lockfile"
)

// Every is how often a watching importer looks for a poke: a stat of one file.
const Every = 50 * time.Millisecond

// stale is how long a marker nobody pokes is kept (a session's; one byte a turn).
const stale = 7 * 24 * time.Hour

// MaxWatchers bounds the importers that stay at once for one memory (each an idle process of
// ~25 MB): sessions going on at the same time on one machine are a few; a flood of Stops
// naming transcripts of their own gets plain imports past it.
const MaxWatchers = 4

// Dir is where the markers and locks of the watched transcripts are, under a memory's state
// directory (.git/reflect).
func Dir(stateDir string) string { return filepath.Join(stateDir, "history-watch") }

// paths are the marker a poke appends to and the lock a watching importer holds, for one
// transcript.
func paths(stateDir, transcript string) (marker, lock string) {
	sum := sha256.Sum256([]byte(transcript))
	name := hex.EncodeToString(sum[:10])
	return filepath.Join(Dir(stateDir), name+".poke"), filepath.Join(Dir(stateDir), name+".lock")
}

// pokeHold is how long an importer waits for a session's lock a poke may hold (Watch).
const pokeHold = 100 * time.Millisecond

// Poke tells the importer watching transcript, if there is one, that the session had a turn:
// true when one watches it (it will import what is new), false when none does (the caller
// starts one).
func Poke(stateDir, transcript string) (bool, error) {
	marker, lock := paths(stateDir, transcript)
	// append first, then try the lock (see the package comment)
	f, err := os.OpenFile(marker, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(marker), 0o700); err != nil {
			return false, err
		}
		f, err = os.OpenFile(marker, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	}
	if err != nil {
		return false, err
	}
	_, werr := f.Write([]byte{'.'})
	if err := errors.Join(werr, f.Close()); err != nil {
		return false, err
	}
	unlock, err := lockfile.Take(context.Background(), lock, 0)
	switch {
	case errors.Is(err, lockfile.ErrHeld):
		return true, nil
	case err != nil:
		return false, err
	}
	unlock()
	return false, nil
}

// Watch imports transcript's turns as pokes come, for as long as they come at most idle
// apart: imp at once, then again after each poke (pokes that come while it runs make one more
// run). It returns when idle passed without a poke, ctx ended or the state directory is gone;
// watched is false, and nothing was done, when another process watches transcript already,
// when MaxWatchers watch other transcripts, or when transcript is there but not a regular
// file. One that is not there yet (a session start's) is imported from the first poke.
// An error of imp is handed to failed and the watch goes on.
func Watch(ctx context.Context, stateDir, transcript string, idle time.Duration, imp func() error, failed func(error)) (watched bool, err error) {
	if fi, err := os.Stat(transcript); err == nil && !fi.Mode().IsRegular() {
		return false, nil // nothing to watch: the caller's import says why
	}
	marker, lock := paths(stateDir, transcript)
	var slot func()
	for i := 0; i < MaxWatchers && slot == nil; i++ {
		slot, _ = lockfile.Take(ctx, filepath.Join(Dir(stateDir), fmt.Sprintf("slot-%d.lock", i)), 0)
	}
	if slot == nil {
		return false, nil
	}
	defer slot()
	// a poke holds the lock for a moment to look whether an importer does (Poke): one that
	// found it so held gave up, and a session start's importer, starting as the first Stop
	// poked, left the session to the importer that Stop then started (and a test that pokes
	// and starts none timed out, one run in ten on a busy machine). An importer holds it for
	// minutes, so a short wait tells the two apart.
	unlock, err := lockfile.Take(ctx, lock, pokeHold)
	if errors.Is(err, lockfile.ErrHeld) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	prune(Dir(stateDir), marker)
	run := func() {
		if _, err := os.Stat(transcript); err != nil {
			return // a session start's transcript, which its first turn writes: the poke will come
		}
		if err := imp(); err != nil {
			failed(err)
		}
	}
	seen := size(marker)
	run()
	last := time.Now()
	tick := time.NewTicker(Every)
	defer tick.Stop()
	for gone := false; !gone; {
		select {
		case <-ctx.Done():
			gone = true
			continue
		case <-tick.C:
		}
		if _, err := os.Stat(stateDir); err != nil {
			unlock()
			return true, nil // the memory was removed: nothing to import into
		}
		if leave.Asked(Dir(stateDir)) {
			break // asked to leave (Leave)
		}
		if n := size(marker); n != seen {
			seen = n
			run()
			last = time.Now()
			continue
		}
		gone = time.Since(last) >= idle
	}
	unlock()
	if size(marker) != seen {
		run() // a poke after the last look, which found the lock still held
	}
	return true, nil
}

// Leave asks the importers watching sessions of the memory to leave, at their next look (every
// Every); they import a poke they have not seen first (package leave). The returned function
// lets importers stay again.
func Leave(stateDir string) (stay func(), err error) { return leave.Ask(Dir(stateDir)) }

// size is the marker's length: each poke adds one.
func size(marker string) int64 {
	fi, err := os.Stat(marker)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// prune removes the markers and locks of transcripts nobody poked for a week (not keep's).
func prune(dir, keep string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if !strings.HasSuffix(p, ".poke") || p == keep {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > stale {
			os.Remove(p)
			os.Remove(strings.TrimSuffix(p, ".poke") + ".lock")
		}
	}
}
