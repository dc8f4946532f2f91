package e2e

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAutoSync: with [sync] auto = true, a drain that learned something pushes, and a
// SessionStart on the other laptop pulls it in the background — neither inside a hook.
func TestAutoSync(t *testing.T) {
	environ := env(t)
	bin := reflectBin(t)
	remote := filepath.Join(t.TempDir(), "remote.git")
	run(t, environ, ".", "git", "init", "-q", "--bare", "-b", "main", remote)
	a := filepath.Join(t.TempDir(), "a")
	run(t, environ, ".", bin, "--home", a, "init", "--remote", remote)
	// sync.auto is local to each machine: B does not inherit A's
	run(t, environ, ".", bin, "--home", a, "config", "set", "sync.auto", "true")
	run(t, environ, ".", bin, "--home", a, "sync")
	b := filepath.Join(t.TempDir(), "b")
	run(t, environ, ".", bin, "--home", b, "init", "--from", remote)
	if got := strings.TrimSpace(run(t, environ, ".", bin, "--home", b, "config", "get", "sync.auto")); got != "false" {
		t.Fatalf("B's sync.auto = %s before B set it", got)
	}
	run(t, environ, ".", bin, "--home", b, "config", "set", "sync.auto", "true")
	t.Cleanup(func() { waitBackground(a); waitBackground(b) })

	// laptop A drains a capture: the drain pushes what it learned
	queueNotes(t, a, 1)
	run(t, environ, ".", bin, "--home", a, "drain")
	remoteLog := run(t, environ, remote, "git", "log", "--format=%s")
	if !strings.Contains(remoteLog, "learn: ") {
		t.Fatalf("the drain did not push:\n%s", remoteLog)
	}
	// laptop B starts a session: the hook returns at once, the pull happens behind it
	out, took := runHook(t, environ, b, "claude", map[string]any{"session_id": "s-auto", "hook_event_name": "SessionStart", "source": "startup", "cwd": t.TempDir()})
	if msg := checkHookOutput([]byte(out)); msg != "" {
		t.Fatal(msg)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) && !strings.Contains(run(t, environ, b, "git", "log", "--format=%s"), "learn: ") {
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(run(t, environ, b, "git", "log", "--format=%s"), "learn: ") {
		t.Fatal("SessionStart did not pull in the background")
	}
	t.Logf("SessionStart returned in %v", took)
	waitBackground(b)
	assertHealthy(t, environ, a)
	assertHealthy(t, environ, b)
}
