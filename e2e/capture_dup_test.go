package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofrs/flock"
)

// queuedSessions counts the entries in HEAD's queue/ (failed ones aside) by session.
func queuedSessions(t *testing.T, environ []string, home string) map[string]int {
	t.Helper()
	n := map[string]int{}
	for _, f := range strings.Fields(run(t, environ, home, "git", "ls-tree", "--name-only", "HEAD", "queue/")) {
		if !strings.HasSuffix(f, ".json") {
			continue
		}
		var e struct{ Session string }
		if err := json.Unmarshal([]byte(run(t, environ, home, "git", "show", "HEAD:"+f)), &e); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		n[e.Session]++
	}
	return n
}

// TestCaptureHooksQueueASessionOnce runs the capture hooks as the host does, one process
// each: a Stop and a SessionEnd of one session at once (each once committed an entry of
// its own when the session had none pending), and PreCompacts killed with SIGKILL at random
// moments, each followed by another (a kill between the commit and the session's marks
// left the next capture a second entry over the same range). Every session must end with
// one pending entry, every capture committed or queued.
func TestCaptureHooksQueueASessionOnce(t *testing.T) {
	environ := env(t)
	home := initRepo(t, environ)
	bin := reflectBin(t)
	src, err := os.ReadFile(filepath.Join("..", "fixtures", "transcripts", "claude-session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	tr := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(tr, src, 0o644)
	cwd := t.TempDir()
	hook := func(session, event string) *exec.Cmd {
		p, _ := json.Marshal(map[string]any{"session_id": session, "transcript_path": tr, "cwd": cwd, "hook_event_name": event})
		cmd := exec.Command(bin, "--home", home, "hook", "claude")
		cmd.Env, cmd.Stdin = environ, bytes.NewReader(p)
		return cmd
	}

	for round := 0; round < 5; round++ {
		session := fmt.Sprintf("together-%d", round)
		var wg sync.WaitGroup
		for _, ev := range []string{"Stop", "SessionEnd"} {
			cmd := hook(session, ev)
			wg.Add(1)
			go func() {
				defer wg.Done()
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Errorf("%s: %v: %s", ev, err, out)
				}
			}()
		}
		wg.Wait()
	}
	waitBackground(home) // a capture handed on at its deadline commits in a late-hook
	queued := queuedSessions(t, environ, home)
	for round := 0; round < 5; round++ {
		if n := queued[fmt.Sprintf("together-%d", round)]; n != 1 {
			t.Errorf("session together-%d has %d pending entries, want 1", round, n)
		}
	}

	rng := rand.New(rand.NewPCG(3, 4))
	const kills = 40
	for i := 0; i < kills; i++ {
		session := fmt.Sprintf("killed-%d", i)
		cmd := hook(session, "PreCompact")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rng.IntN(100)) * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()
		if out, err := hook(session, "PreCompact").CombinedOutput(); err != nil {
			t.Fatalf("PreCompact after a kill: %v: %s", err, out)
		}
	}
	waitBackground(home)
	queued = queuedSessions(t, environ, home)
	for i := 0; i < kills; i++ {
		if n := queued[fmt.Sprintf("killed-%d", i)]; n != 1 {
			t.Errorf("session killed-%d has %d pending entries, want 1", i, n)
		}
	}
	assertHealthy(t, environ, home)
}

// TestLateCaptureHandedOn: a capture that cannot finish within its hook's deadline — the
// repository held by another write (here a lock held through the hook), or a session too long
// to read in time (a 30 MB transcript took 650 ms against 500 on two cores, every time) — is
// handed to a detached `reflect internal late-hook`, which commits it once it can; before, it
// was lost, and a long session's every later capture gave up the same way. The hook keeps its
// contract: exit 0, nothing printed, within its deadline and grace.
func TestLateCaptureHandedOn(t *testing.T) {
	environ := env(t)
	home := initRepo(t, environ)
	run(t, environ, home, reflectBin(t), "--home", home, "config", "set", "hooks.capture_timeout", "100ms")
	src, err := os.ReadFile(filepath.Join("..", "fixtures", "transcripts", "claude-session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	tr := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(tr, src, 0o644)
	held := flock.New(filepath.Join(home, ".git", "reflect", "locks", "repo"))
	if err := held.Lock(); err != nil {
		t.Fatal(err)
	}
	out, took := runHook(t, environ, home, "claude", map[string]any{"session_id": "late-1", "transcript_path": tr, "cwd": t.TempDir(), "hook_event_name": "PreCompact", "trigger": "auto"})
	held.Unlock()
	if out != "" || took > 2*time.Second {
		t.Fatalf("the hook printed %q in %v", out, took)
	}
	last, _ := os.ReadFile(filepath.Join(home, ".git", "reflect", "last-event.json"))
	if !strings.Contains(string(last), `"late":"handed to a background process"`) {
		t.Fatalf("last-event.json: %s", last)
	}
	waitBackground(home)
	if n := queuedSessions(t, environ, home); n["late-1"] != 1 {
		t.Fatalf("queued %v, want the session once", n)
	}
	if left, _ := os.ReadDir(filepath.Join(home, ".git", "reflect", "state", "late")); len(left) != 0 {
		t.Errorf("payloads left behind: %v", left)
	}
	assertHealthy(t, environ, home)
}

// TestAbandonedLateCaptureRunByTheDrain: a capture handed on at its hook's deadline that no
// late-hook completed (its process could not be started, the machine went down, it gave up
// too) is not left to the 30-day sweep: reflect status counts it, and the next drain runs it
// again, then drains what it queued.
func TestAbandonedLateCaptureRunByTheDrain(t *testing.T) {
	environ := env(t)
	home := initRepo(t, environ)
	src, err := os.ReadFile(filepath.Join("..", "fixtures", "transcripts", "claude-session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	tr := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(tr, src, 0o644)
	payload, _ := json.Marshal(map[string]any{"session_id": "late-2", "transcript_path": tr, "cwd": t.TempDir(), "hook_event_name": "SessionEnd", "reason": "exit"})
	saved := time.Now().Add(-5 * time.Minute)
	data, _ := json.Marshal(map[string]any{"harness": "claude", "saved": saved, "payload": payload})
	dir := filepath.Join(home, ".git", "reflect", "state", "late")
	os.MkdirAll(dir, 0o755)
	file := filepath.Join(dir, fmt.Sprintf("claude-late-2-%d.json", saved.UnixNano()))
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(file, saved, saved)

	if st := run(t, environ, home, reflectBin(t), "--home", home, "status"); !strings.Contains(st, "1 captures a hook gave up on") {
		t.Fatalf("status does not count the capture handed on:\n%s", st)
	}
	out := run(t, environ, home, reflectBin(t), "--home", home, "drain", "--extractor", "heuristic")
	if !strings.Contains(out, "drained 1,") {
		t.Errorf("drain: %s", out)
	}
	if log := run(t, environ, home, "git", "log", "--format=%s"); !strings.Contains(log, "session late-2") {
		t.Errorf("no capture of the session in the history:\n%s", log)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("captures left behind: %v", left)
	}
	assertHealthy(t, environ, home)
}
