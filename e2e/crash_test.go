package e2e

import (
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
