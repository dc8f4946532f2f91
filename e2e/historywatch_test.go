package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/internal/testenv"
)

// TestStopWatchesSession, with the real programs: a session's start starts its history
// importer, which stays to watch the session (its transcript not yet written); its Stops start
// no process, yet what their turns said is found by `reflect history search`; asked to leave (history/watch.Leave, as
// testenv.WaitDetached asks), the importer leaves, and the memory is healthy. (The session
// start also leaves a resident reflect-engine for the session's recall hooks, hooks/resident:
// it is the same one throughout, and leaves when asked too.)
func TestStopWatchesSession(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	environ := env(t)
	home := initRepo(t, environ)
	session := "7c1d2e3f-0a1b-4c2d-8e3f-405162738495"
	transcript := filepath.Join(t.TempDir(), session+".jsonl")
	say := func(uuid, text string) {
		f, err := os.OpenFile(transcript, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(claudeRecord(session, uuid, "user", text))
		f.Close()
	}
	stop := map[string]any{"session_id": session, "hook_event_name": "Stop", "transcript_path": transcript, "cwd": t.TempDir(), "stop_hook_active": false}
	found := func(needle string) bool {
		for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
			c := exec.Command(reflectBin(t), "--home", home, "history", "search", "--global", needle)
			c.Env = environ
			out, _ := c.CombinedOutput() // busy while an import writes: asked again
			if strings.Contains(string(out), needle) {
				return true
			}
		}
		return false
	}
	// the session's start starts its importer, before the transcript is written
	hook(t, environ, home, "claude", map[string]any{"session_id": session, "hook_event_name": "SessionStart", "source": "startup", "transcript_path": transcript, "cwd": t.TempDir()})
	var first []string
	for end := time.Now().Add(10 * time.Second); len(first) == 0 && time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		first = watchers(home)
	}
	if len(first) != 1 {
		t.Fatalf("%d importers watch the session after its start; want 1", len(first))
	}
	for end := time.Now().Add(10 * time.Second); len(processesOn(home)) > 1 && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond) // what else the session start began (a pool refill)
	}
	stays := residents(home)
	if len(stays) != 1 {
		t.Fatalf("%d resident engines after the session's start; want 1", len(stays))
	}
	for i, word := range []string{"aardvark", "bandicoot", "capybara", "dugong"} {
		say("u"+string(rune('1'+i)), "turn "+string(rune('1'+i))+" mentions the "+word+" rollout")
		hook(t, environ, home, "claude", stop)
		// right as the hook returns, a process it started would still be starting
		if procs := processesOn(home); len(procs) != 1 || procs[0] != first[0] {
			t.Fatalf("after Stop %d, processes on the memory %v; want only the watching importer %v (and the resident engine %v)", i+1, procs, first, stays)
		}
		if !found(word) {
			t.Fatalf("turn %d (%s) was not imported", i+1, word)
		}
	}
	if now := residents(home); !slices.Equal(now, stays) {
		t.Fatalf("resident engines %v after the Stops; want %v, the session start's", now, stays)
	}
	waitBackground(home) // asks the importer and the resident engine to leave, and waits for them
	if procs := testenv.Processes(home, ""); len(procs) != 0 {
		t.Fatalf("processes %v still on the memory after the importer was asked to leave", procs)
	}
	assertHealthy(t, environ, home)
}

// watchers are the pids of the history importers watching a session of home.
func watchers(home string) []string { return testenv.Processes(home, testenv.WatchArg) }

// processesOn are the pids of the other processes naming home, resident engines aside.
func processesOn(home string) []string {
	var pids []string
	stays := residents(home)
	for _, pid := range testenv.Processes(home, "") {
		if !slices.Contains(stays, pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// residents are the pids of the resident engines of home (hooks/resident).
func residents(home string) []string { return testenv.Processes(home, testenv.ResidentArg) }
