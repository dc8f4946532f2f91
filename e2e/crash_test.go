package e2e

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestKilledAddsLeaveNoTrace kills `reflect add` with SIGKILL at random moments. After every
// kill the repository must still be sound (fsck), and once the next capture has run, every
// learning is either fully committed or absent and git status is clean.
func TestKilledAddsLeaveNoTrace(t *testing.T) {
	kills := 120
	if testing.Short() {
		kills = 30
	}
	environ := env(t)
	home := initRepo(t, environ)
	bin := reflectBin(t)
	rng := rand.New(rand.NewPCG(1, 2))

	// how long one add takes here, to spread the kills over its whole life
	var span time.Duration
	for k := 0; k < 3; k++ {
		start := time.Now()
		run(t, environ, ".", bin, "--home", home, "add", "--global", "--title", fmt.Sprintf("warm-up %d", k))
		if d := time.Since(start); span == 0 || d < span {
			span = d
		}
	}
	span *= 2
	completed, killed, midWrite := 3, 0, 0
	for i := 0; i < kills; i++ {
		cmd := exec.Command(bin, "--home", home, "add", "--global", "--title", fmt.Sprintf("capture %d", i), "--body", strings.Repeat("x", rng.IntN(4000)))
		cmd.Env = environ
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rng.Int64N(int64(span))))
		cmd.Process.Kill()
		if err := cmd.Wait(); err == nil {
			completed++
		} else {
			killed++
		}
		if fi, err := os.Stat(filepath.Join(home, ".git", "reflect", "journal.json")); err == nil && fi.Size() > 0 {
			midWrite++
		}
		run(t, environ, home, "git", "fsck", "--strict", "--no-progress", "--no-dangling")
		if i%10 == 9 { // the next capture always works and repairs what the kill left
			run(t, environ, ".", bin, "--home", home, "add", "--global", "--title", fmt.Sprintf("after kill %d", i))
			completed++
			assertHealthy(t, environ, home)
		}
	}
	run(t, environ, ".", bin, "--home", home, "add", "--global", "--title", "final")
	completed++
	assertHealthy(t, environ, home)
	t.Logf("%d adds killed (%d in the middle of writing), %d completed", killed, midWrite, completed)
	if killed < kills/5 {
		t.Fatalf("only %d of %d adds were killed mid-way; the test is not exercising crashes", killed, kills)
	}
	// every learning in HEAD parses and is whole; none exists only in the work tree
	listed := run(t, environ, ".", bin, "--home", home, "list", "--format", "json")
	var inHead []string
	for _, f := range strings.Fields(run(t, environ, home, "git", "ls-tree", "-r", "--name-only", "HEAD", "learnings")) {
		inHead = append(inHead, f)
		if !strings.Contains(listed, filepath.Base(strings.TrimSuffix(f, ".md"))) {
			t.Errorf("%s is committed but does not load", f)
		}
	}
	onDisk, _ := filepath.Glob(filepath.Join(home, "learnings", "_global", "*.md"))
	if len(onDisk) != len(inHead) {
		t.Fatalf("%d learning files on disk, %d in HEAD", len(onDisk), len(inHead))
	}
	if len(inHead) < completed {
		t.Fatalf("%d learnings in HEAD, but %d adds completed", len(inHead), completed)
	}
	if fi, err := os.Stat(filepath.Join(home, ".git", "reflect", "journal.json")); err == nil && fi.Size() > 0 {
		t.Fatal("journal left behind after a successful capture")
	}
}

// TestDoctorAfterAKilledWrite: `reflect add` killed between its work-tree file and the
// branch (it waits on the branch's lock file, held as git would) leaves a half-written work
// tree. doctor says a write was interrupted and that reflect settles it (not "commit by
// hand"); `reflect doctor --repair` settles it, and the repository is whole.
func TestDoctorAfterAKilledWrite(t *testing.T) {
	environ := env(t)
	home := initRepo(t, environ)
	bin := reflectBin(t)
	run(t, environ, ".", bin, "--home", home, "add", "--global", "--title", "Before the kill")
	refLock := filepath.Join(home, ".git", "refs", "heads", "main.lock")
	if err := os.WriteFile(refLock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--home", home, "add", "--global", "--title", "Killed midway")
	cmd.Env = environ
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	global := filepath.Join(home, "learnings", "_global")
	before, _ := os.ReadDir(global)
	for end := time.Now().Add(8 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if now, _ := os.ReadDir(global); len(now) > len(before) {
			break
		}
		if time.Now().After(end) {
			cmd.Process.Kill()
			t.Fatal("reflect add never wrote its file")
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	os.Remove(refLock)

	code, out, _ := reflectRun(t, environ, home, "doctor", "--format", "json")
	var rep struct {
		Findings []struct {
			Check, Severity, Message, Fix string
			Details                       []string
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("doctor (exit %d): %v\n%s", code, err, out)
	}
	found := false
	for _, f := range rep.Findings {
		if f.Check != "worktree" {
			continue
		}
		if strings.Contains(f.Fix, "commit") {
			t.Errorf("doctor tells the user to commit a half-written work tree: %s → %s", f.Message, f.Fix)
		}
		if f.Severity == "warn" && strings.Contains(f.Message, "write was interrupted") && strings.HasSuffix(f.Fix, "doctor --repair") {
			found = true
		}
	}
	if !found {
		t.Fatalf("doctor does not recognise the interrupted write:\n%s", out)
	}
	repaired := run(t, environ, ".", bin, "--home", home, "doctor", "--repair")
	if !strings.Contains(repaired, "repaired an interrupted write") || !strings.Contains(repaired, "clean: the work tree matches HEAD") {
		t.Fatalf("doctor --repair:\n%s", repaired)
	}
	assertHealthy(t, environ, home)
	if l := run(t, environ, ".", bin, "--home", home, "list"); !strings.Contains(l, "Before the kill") || strings.Contains(l, "Killed midway") {
		t.Fatalf("after the repair:\n%s", l)
	}
}
