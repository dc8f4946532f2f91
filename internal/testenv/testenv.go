// Package testenv is what the tests of several packages share: a home of their own, so
// that nothing of the user's git or reflect configuration is read or written.
package testenv

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/reflect-memory/reflect/history/watch"
	"github.com/reflect-memory/reflect/hooks/resident"
)

// SetHome gives the test an empty HOME and XDG_CONFIG_HOME, no system git config, and a
// git identity for the commits the git CLI makes.
func SetHome(t testing.TB) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, k := range []string{"GIT_AUTHOR", "GIT_COMMITTER"} {
		t.Setenv(k+"_NAME", "t")
		t.Setenv(k+"_EMAIL", "t@example.org")
	}
}

// WaitDetached waits for the detached reflect processes that commands and hooks start on
// the knowledge repository at home (drain, sync, index catch-up or build, pool refill, history
// import): until no other process names home on its command line (Linux's /proc; elsewhere it
// only waits on the locks), then until their locks are free. The history importers that stay
// to watch their sessions (history import --watch) and the resident engines that stay to
// answer recall hooks (internal resident) are asked to leave first (history/watch.Leave,
// hooks/resident.Leave): each finishes what it was asked for and goes. A test calls it before
// its temporary directory is removed.
func WaitDetached(home string) {
	for _, leave := range []func(string) (func(), error){watch.Leave, resident.Leave} {
		if stay, err := leave(stateDir(home)); err == nil {
			defer stay()
		}
	}
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); {
		time.Sleep(30 * time.Millisecond)
		if !runningOn(home) {
			break
		}
	}
	for _, name := range []string{"drain", "sync", "pool", "index-build", "index", "history"} {
		fl := flock.New(filepath.Join(stateDir(home), "locks", name))
		if fl.Lock() == nil {
			fl.Unlock()
		}
	}
}

// StopWatchers asks the history importers watching sessions of the memory at home to leave and
// waits (at most 20 s) until none runs; later Stops start new ones.
func StopWatchers(home string) { stop(home, watch.Leave, WatchArg) }

// StopResident asks the resident engine of the memory at home to leave and waits (at most
// 20 s) until none runs; a later recall hook starts a new one.
func StopResident(home string) { stop(home, resident.Leave, ResidentArg) }

// stop asks the processes that stay for the memory at home to leave (leave) and waits (at most
// 20 s) until none whose command line holds arg runs.
func stop(home string, leave func(stateDir string) (func(), error), arg string) {
	stay, err := leave(stateDir(home))
	if err != nil {
		return
	}
	defer stay()
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end) && len(Processes(home, arg)) > 0; {
		time.Sleep(10 * time.Millisecond)
	}
}

// stateDir is the state directory of the memory at home.
func stateDir(home string) string { return filepath.Join(home, ".git", "reflect") }

// ResidentArg marks a resident engine on its command line.
const ResidentArg = "\x00internal\x00resident"

// Processes are the pids of the other processes that name home on their command line and,
// when with is not empty, hold with in it too (Linux's /proc; elsewhere none).
func Processes(home, with string) []string {
	var pids []string
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	self := fmt.Sprintf("/proc/%d/cmdline", os.Getpid())
	for _, p := range procs {
		if p == self {
			continue
		}
		if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(home)) && bytes.Contains(b, []byte(with)) {
			pids = append(pids, filepath.Base(filepath.Dir(p)))
		}
	}
	return pids
}

// WatchArg marks a history importer watching a session on its command line.
const WatchArg = "\x00--watch\x00"

// runningOn reports whether a process other than this one has home on its command line.
func runningOn(home string) bool { return len(Processes(home, "")) > 0 }
