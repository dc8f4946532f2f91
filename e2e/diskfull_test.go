package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reflect-memory/reflect/internal/testenv"
)

// reflectRun runs reflect and returns its exit code, stdout and stderr.
func reflectRun(t *testing.T, environ []string, home string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(reflectBin(t), append([]string{"--home", home}, args...)...)
	cmd.Env = environ
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, stdout.String(), stderr.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), stdout.String(), stderr.String()
	}
	t.Fatalf("reflect %v: %v", args, err)
	return 0, "", ""
}

// fsckClean checks the objects without writing anything (git status would refresh the
// index, which needs space).
func fsckClean(t *testing.T, environ []string, home string) {
	t.Helper()
	run(t, environ, home, "git", "fsck", "--strict", "--no-progress", "--no-dangling")
}

// TestDiskFull: with the disk of the memory (and of its bare remote) full, `reflect add`,
// `reflect drain` and `reflect sync` each fail with exit code 9 and a message naming what
// could not be written; nothing is corrupted (git fsck --strict), nothing is lost (the
// pending capture stays queued, not failed; earlier learnings stay), and once space is
// freed the same command succeeds and leaves git status clean. Then `reflect add` is run
// with every amount of space from none to enough, so that the disk runs out at each phase
// of a write (objects, work tree, git index, ref).
func TestDiskFull(t *testing.T) {
	mnt := testenv.MountTmpfs(t, "16m")
	environ := env(t)
	bin := reflectBin(t)
	remote := filepath.Join(mnt, "remote.git")
	run(t, environ, ".", "git", "init", "-q", "--bare", "-b", "main", remote)
	a := filepath.Join(mnt, "mem")
	run(t, environ, ".", bin, "--home", a, "init", "--remote", remote)
	t.Cleanup(func() { waitBackground(a) })
	run(t, environ, ".", bin, "--home", a, "add", "--global", "--title", "An earlier learning stays", "--body", "It was there before the disk filled.")
	run(t, environ, ".", bin, "--home", a, "sync")
	// laptop B, on another disk, pushes a learning that A's sync must fetch
	b := filepath.Join(t.TempDir(), "b")
	run(t, environ, ".", bin, "--home", b, "init", "--from", remote)
	t.Cleanup(func() { waitBackground(b) })
	run(t, environ, ".", bin, "--home", b, "add", "--global", "--title", "Learned on laptop B", "--body", "b")
	run(t, environ, ".", bin, "--home", b, "sync")
	// A: a learning not pushed yet, and a capture waiting for the drain
	run(t, environ, ".", bin, "--home", a, "add", "--global", "--title", "Learned on laptop A", "--body", "a")
	tr := filepath.Join(t.TempDir(), "s.jsonl")
	src, _ := os.ReadFile(filepath.Join("..", "fixtures", "transcripts", "claude-session.jsonl"))
	os.WriteFile(tr, src, 0o644)
	runHook(t, environ, a, "claude", map[string]any{"session_id": "s-full", "transcript_path": tr, "cwd": t.TempDir(), "hook_event_name": "PreCompact", "trigger": "auto"})
	queued := run(t, environ, ".", bin, "--home", a, "queue", "list")
	if !strings.Contains(queued, "pending") {
		t.Fatalf("no capture queued:\n%s", queued)
	}
	waitBackground(a)
	before := learnedIDs(t, environ, a)

	d := testenv.FillDisk(t, mnt)
	for _, c := range []struct {
		name   string
		args   []string
		queued bool   // the capture is still pending before the command
		done   func() // checks, once space is back, that the command did its job
	}{
		{"add", []string{"add", "--global", "--title", "Written once there is space", "--body", "x"}, true, func() {
			if l := run(t, environ, ".", bin, "--home", a, "list"); !strings.Contains(l, "Written once there is space") {
				t.Errorf("the learning is not there:\n%s", l)
			}
		}},
		{"drain", []string{"drain"}, true, func() {
			if q := run(t, environ, ".", bin, "--home", a, "queue", "list"); strings.Contains(q, "s-full") {
				t.Errorf("the capture was not drained:\n%s", q)
			}
		}},
		{"sync", []string{"sync"}, false, func() {
			if l := run(t, environ, ".", bin, "--home", a, "list"); !strings.Contains(l, "Learned on laptop B") {
				t.Errorf("B's learning did not come in:\n%s", l)
			}
			if l := run(t, environ, remote, "git", "log", "--format=%s"); !strings.Contains(l, "Learned on laptop A") {
				t.Errorf("A's learning did not go out:\n%s", l)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d.Leave(t, 0)
			code, stdout, stderr := reflectRun(t, environ, a, c.args...)
			waitBackground(a)
			if code != 9 {
				t.Errorf("exit code %d on a full disk, want 9\nstdout: %s\nstderr: %s", code, stdout, stderr)
			}
			if !strings.Contains(stderr, "cannot write the repository at "+a) || !strings.Contains(stderr, "no space left on device") {
				t.Errorf("the error does not say what could not be written:\n%s", stderr)
			}
			if c.name == "drain" && (strings.Contains(stdout, "1 new learnings") || !strings.Contains(stdout, "drained 0")) {
				t.Errorf("the drain reports learnings it did not commit:\n%s", stdout)
			}
			fsckClean(t, environ, a)
			q := run(t, environ, ".", bin, "--home", a, "queue", "list")
			if c.queued && !strings.Contains(q, "pending") {
				t.Errorf("the pending capture is gone:\n%s", q)
			}
			if strings.Contains(q, "failed") {
				t.Errorf("a local disk error moved the capture to failed/:\n%s", q)
			}
			if now := learnedIDs(t, environ, a); !isSubset(before, now) {
				t.Errorf("learnings are gone: had %v, have %v", before, now)
			}
			d.Free()
			if code, stdout, stderr := reflectRun(t, environ, a, c.args...); code != 0 {
				t.Fatalf("with space again: exit %d\n%s%s", code, stdout, stderr)
			}
			waitBackground(a)
			c.done()
			assertHealthy(t, environ, a)
			d = testenv.FillDisk(t, mnt)
		})
	}

	// the disk runs out at every phase of a write in turn
	t.Run("add with a little space", func(t *testing.T) {
		made := 0
		var codes []int
		for left := int64(0); left <= 96<<10; left += 4 << 10 {
			// filled again each time: a failed write may leave orphan objects behind
			d.Free()
			d = testenv.FillDisk(t, mnt)
			d.Leave(t, left)
			code, _, stderr := reflectRun(t, environ, a, "add", "--global", "--title", fmt.Sprintf("Space left %d KB", left>>10), "--body", strings.Repeat("lesson ", 200))
			waitBackground(a)
			codes = append(codes, code)
			switch code {
			case 0:
				made++
			case 9:
				if !strings.Contains(stderr, "no space left on device") {
					t.Errorf("%d KB left: %s", left>>10, stderr)
				}
			default:
				t.Errorf("%d KB left: exit %d: %s", left>>10, code, stderr)
			}
			fsckClean(t, environ, a)
		}
		t.Logf("exit codes from 0 KB left up, by 4 KB: %v", codes)
		if made == 0 {
			t.Fatal("not one add fitted in 96 KB: the test did not reach a write's later phases")
		}
		d.Free()
		run(t, environ, ".", bin, "--home", a, "add", "--global", "--title", "After the squeeze", "--body", "x")
		waitBackground(a)
		assertHealthy(t, environ, a)
		l := run(t, environ, ".", bin, "--home", a, "list", "--status", "all")
		if got := strings.Count(l, "Space left "); got != made {
			t.Errorf("%d adds succeeded, %d of their learnings are there", made, got)
		}
	})
	d.Free()
}

// learnedIDs lists the ids of every learning of the memory at home.
func learnedIDs(t *testing.T, environ []string, home string) []string {
	t.Helper()
	out := run(t, environ, ".", reflectBin(t), "--home", home, "list", "--status", "all", "--format", "json")
	var ls []struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(out), &ls); err != nil {
		t.Fatalf("list: %v\n%s", err, out)
	}
	var ids []string
	for _, l := range ls {
		ids = append(ids, l.ID)
	}
	return ids
}

func isSubset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}
