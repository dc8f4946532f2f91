// Package testenv is what the tests of several packages share: a home of their own, so
// that nothing of the user's git or reflect configuration is read or written.
package testenv

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/gofrs/flock"
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
// only waits on the locks), then until their locks are free. A history importer that stays
// to watch its session (history import --watch) is asked to leave first, as a signal asks
// it: it finishes the import under way. A test calls it before its temporary directory is
// removed.
func WaitDetached(home string) {
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); {
		StopWatchers(home)
		time.Sleep(30 * time.Millisecond)
		if !runningOn(home) {
			break
		}
	}
	for _, name := range []string{"drain", "sync", "pool", "index-build", "index", "history"} {
		fl := flock.New(filepath.Join(home, ".git", "reflect", "locks", name))
		if fl.Lock() == nil {
			fl.Unlock()
		}
	}
}

// StopWatchers sends SIGTERM to the history importers watching a session of home (history
// import --watch) and says how many it signalled.
func StopWatchers(home string) int {
	n := 0
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(b, []byte(home)) {
			continue
		}
		args := bytes.Split(b, []byte{0})
		if !slices.ContainsFunc(args, func(a []byte) bool { return string(a) == "--watch" }) {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p))); err == nil && pid != os.Getpid() {
			if proc, err := os.FindProcess(pid); err == nil && proc.Signal(syscall.SIGTERM) == nil {
				n++
			}
		}
	}
	return n
}

// runningOn reports whether a process other than this one has home on its command line.
func runningOn(home string) bool {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	self := fmt.Sprintf("/proc/%d/cmdline", os.Getpid())
	for _, p := range procs {
		if p == self {
			continue
		}
		if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(home)) {
			return true
		}
	}
	return false
}
