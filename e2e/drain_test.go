package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/queue"
)

// queueNotes commits n queue entries, each a session whose user said "remember: fact N"
// (a lesson the heuristic extractor turns into one learning), and returns their ids.
func queueNotes(t *testing.T, home string, n int) []string {
	t.Helper()
	r, err := gitstore.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	var ids []string
	base := time.Now().Add(-time.Hour)
	for i := 0; i < n; i++ {
		at := base.Add(time.Duration(i) * time.Millisecond)
		e := &queue.Entry{ID: queue.NewID(at), Harness: "claude-code", Session: fmt.Sprintf("sess-%04d", i), Trigger: "precompact",
			Project: "github.com/acme/widgets", Machine: "laptop-a", Created: at, Updated: at, Messages: 2,
			Digest: queue.Digest{Prompts: 1, Notes: []queue.Note{
				{Kind: queue.NotePrompt, Text: fmt.Sprintf("remember: the widget service %04d listens on port %d", i, 10000+i)},
				{Kind: queue.NoteConclusion, Text: "Noted."}}}}
		data, err := e.Render()
		if err != nil {
			t.Fatal(err)
		}
		files[queue.Path(e.ID)] = data
		ids = append(ids, e.ID)
	}
	if _, err := r.Commit(context.Background(), "enqueue", files); err != nil {
		t.Fatal(err)
	}
	return ids
}

// learned maps each "widget service NNNN" fact to how many learnings hold it.
func learned(t *testing.T, environ []string, home string) map[string]int {
	t.Helper()
	out := run(t, environ, ".", reflectBin(t), "--home", home, "list", "--format", "json")
	var ls []struct {
		Title string `json:"title"`
	}
	if err := json.Unmarshal([]byte(out), &ls); err != nil {
		t.Fatal(err, out)
	}
	m := map[string]int{}
	for _, l := range ls {
		if i := strings.Index(l.Title, "widget service "); i >= 0 {
			m[l.Title[i+len("widget service "):i+len("widget service ")+4]]++
		}
	}
	return m
}

// TestFourDrainersAtOnce: four `reflect drain` processes started together over 200 entries
// drain every entry exactly once and duplicate no learning.
func TestFourDrainersAtOnce(t *testing.T) {
	environ := env(t)
	home := initRepo(t, environ)
	ids := queueNotes(t, home, 200)
	bin := reflectBin(t)
	var wg sync.WaitGroup
	outs := make([]string, 4)
	for k := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(bin, "--home", home, "drain")
			cmd.Env = environ
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Errorf("drainer %d: %v\n%s", k, err, out)
			}
			outs[k] = string(out)
		}()
	}
	wg.Wait()
	busy := 0
	for _, o := range outs {
		if strings.Contains(o, "another drain is running") {
			busy++
		}
	}
	// whoever lost the race for the lock said so; drain again in case all started late
	run(t, environ, ".", bin, "--home", home, "drain")
	m := learned(t, environ, home)
	if len(m) != len(ids) {
		t.Errorf("%d of %d entries became learnings", len(m), len(ids))
	}
	for k, n := range m {
		if n != 1 {
			t.Errorf("fact %s learned %d times", k, n)
		}
	}
	if q := run(t, environ, home, "git", "ls-files", "queue"); q != "" {
		t.Errorf("queue not empty:\n%s", q)
	}
	commits := run(t, environ, home, "git", "rev-list", "--count", "HEAD")
	if commits != "202" { // init, enqueue, one per entry
		t.Errorf("%s commits, want 202", commits)
	}
	t.Logf("%d of 4 drainers found another one running", busy)
	assertHealthy(t, environ, home)
}

// TestKilledDrainerLosesNothing kills `reflect drain` at random moments: after every kill
// each entry is either still queued or fully drained (its learning committed), never both
// and never neither, and the repository is sound.
func TestKilledDrainerLosesNothing(t *testing.T) {
	environ := env(t)
	home := initRepo(t, environ)
	ids := queueNotes(t, home, 60)
	bin := reflectBin(t)
	rng := rand.New(rand.NewPCG(3, 4))
	check := func(when string) {
		t.Helper()
		run(t, environ, home, "git", "fsck", "--strict", "--no-progress", "--no-dangling")
		queued := map[string]bool{}
		for _, p := range strings.Fields(run(t, environ, home, "git", "ls-tree", "-r", "--name-only", "HEAD", "queue")) {
			queued[strings.TrimSuffix(strings.TrimPrefix(p, "queue/"), ".json")] = true
		}
		m := learned(t, environ, home)
		for i, id := range ids {
			n := m[fmt.Sprintf("%04d", i)]
			switch {
			case queued[id] && n > 0:
				t.Fatalf("%s: entry %s is both queued and learned", when, id)
			case !queued[id] && n != 1:
				t.Fatalf("%s: entry %s is gone but learned %d times", when, id, n)
			}
		}
	}
	kills := 0
	for round := 0; round < 40; round++ {
		cmd := exec.Command(bin, "--home", home, "drain", "--max", "5")
		cmd.Env = environ
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rng.IntN(60)) * time.Millisecond)
		cmd.Process.Kill()
		if cmd.Wait() != nil {
			kills++
		}
		check(fmt.Sprintf("after kill %d", round))
	}
	run(t, environ, ".", bin, "--home", home, "drain")
	check("after the last drain")
	assertHealthy(t, environ, home)
	if q := run(t, environ, home, "git", "ls-files", "queue"); q != "" {
		t.Errorf("queue not empty at the end:\n%s", q)
	}
	t.Logf("%d of 40 drains killed mid-way", kills)
	if kills < 10 {
		t.Errorf("only %d drains were killed mid-way; the test is not exercising crashes", kills)
	}
}

// TestSessionStartDrainsInTheBackground: a SessionStart hook with captures waiting returns
// at once and a detached drain turns them into learnings.
func TestSessionStartDrainsInTheBackground(t *testing.T) {
	environ := env(t)
	home := initRepo(t, environ)
	queueNotes(t, home, 3)
	out, took := runHook(t, environ, home, "claude", map[string]any{"session_id": "s-bg", "hook_event_name": "SessionStart", "source": "startup", "cwd": t.TempDir()})
	if msg := checkHookOutput([]byte(out)); msg != "" {
		t.Fatal(msg)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) && run(t, environ, home, "git", "ls-files", "queue") != "" {
		time.Sleep(50 * time.Millisecond)
	}
	if q := run(t, environ, home, "git", "ls-files", "queue"); q != "" {
		t.Fatalf("the queue was not drained in the background:\n%s", q)
	}
	if n := len(learned(t, environ, home)); n != 3 {
		t.Errorf("%d learnings, want 3", n)
	}
	t.Logf("SessionStart returned in %v", took)
	waitBackground(home)
	assertHealthy(t, environ, home)
}
