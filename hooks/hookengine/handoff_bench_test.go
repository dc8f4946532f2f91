package hookengine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/fixtures"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/handoff"
	"github.com/reflect-memory/reflect/hooks"
	"github.com/reflect-memory/reflect/index"
	"github.com/reflect-memory/reflect/queue"
	"github.com/reflect-memory/reflect/transcript"
	"github.com/reflect-memory/reflect/workspace"
)

// benchRepo is a memory of n learnings with a fresh index at home/mem, home being a new
// $HOME.
func benchRepo(b *testing.B, n int) (home, dir string) {
	home = b.TempDir()
	b.Setenv("HOME", home)
	b.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	ctx := context.Background()
	dir = filepath.Join(home, "mem")
	if _, _, err := gitstore.Init(ctx, dir, gitstore.InitOptions{}); err != nil {
		b.Fatal(err)
	}
	if err := fixtures.BuildRepo(ctx, dir, n, 100, 20); err != nil {
		b.Fatal(err)
	}
	r, _ := gitstore.Open(dir)
	if _, err := index.Rebuild(ctx, r, index.Options{}); err != nil {
		b.Fatal(err)
	}
	return home, dir
}

// benchMemory is a memory of n learnings with a fresh index, and a project directory on
// branch main whose remote is one of the memory's projects.
func benchMemory(b *testing.B, n int) (dir, proj string) {
	home, dir := benchRepo(b, n)
	proj = filepath.Join(home, "proj")
	for _, args := range [][]string{{"init", "-q", "-b", "main", proj}, {"-C", proj, "remote", "add", "origin", "https://" + fixtures.SynthProject(3) + ".git"}} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			b.Fatal(string(out))
		}
	}
	return dir, proj
}

// benchTranscript writes fixtures.WorkSession of turns turns and returns its path.
func benchTranscript(b *testing.B, dir, proj string, turns int) string {
	path := filepath.Join(dir, "session.jsonl")
	if err := os.WriteFile(path, fixtures.WorkSession(proj, "main", turns, time.Now()), 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkSessionStartHandoff is a SessionStart hook in process at 10,000 learnings: with
// no handoff for the project, with one written on this machine, and with one that arrived
// by sync 50 commits back (its author found by walking history). The bound: with a
// handoff, within 1.3× of without.
func BenchmarkSessionStartHandoff(b *testing.B) {
	dir, proj := benchMemory(b, 10000)
	r, _ := gitstore.Open(dir)
	ctx := context.Background()
	tr := benchTranscript(b, b.TempDir(), proj, 50)
	s, err := transcript.ReadFileFrom(tr, 0, transcript.HarnessClaude)
	if err != nil {
		b.Fatal(err)
	}
	ws, _ := workspace.Read(proj, 0)
	start := func(b *testing.B) {
		i := 0
		for b.Loop() {
			i++
			p, _ := json.Marshal(map[string]any{"session_id": fmt.Sprint("s", i), "hook_event_name": "SessionStart", "source": "startup", "cwd": proj})
			var out bytes.Buffer
			hooks.Run(ctx, hooks.Options{Engine: New(), Harness: "claude", Home: dir, Stdin: bytes.NewReader(p), Stdout: &out, Stderr: io.Discard})
			if i == 1 {
				b.Logf("%d bytes out, handoff %v", out.Len(), strings.Contains(out.String(), "reflect handoff"))
			}
		}
	}
	b.Run("handoff=none", start)
	var w handoff.Written
	if _, err := r.Update(ctx, func(tx *gitstore.Tx) (string, error) {
		w, err = handoff.Stage(tx, s.Messages, handoff.Meta{Harness: "claude-code", Session: "bench", Machine: "laptop-a",
			Project: ws.Project, Branch: ws.Branch, CWD: proj, Now: time.Now()})
		return "handoff", err
	}); err != nil || w.Path == "" {
		b.Fatal(err, w.Skipped)
	}
	if err := handoff.RecordWritten(r, w.Path, w.Blob); err != nil {
		b.Fatal(err)
	}
	b.Run("handoff=here", start)
	for i := 0; i < 50; i++ { // captures of other projects since
		if _, err := r.Commit(ctx, "capture", map[string][]byte{queue.Path(fmt.Sprint("q-", i)): []byte("{}")}); err != nil {
			b.Fatal(err)
		}
	}
	os.Remove(filepath.Join(r.StateDir(), "handoff", "written.json"))
	b.Run("handoff=arrived", start)
}

// BenchmarkCaptureHandoff is a PreCompact hook in process (a capture: the transcript read,
// digested and committed) of a 200-turn session at 10,000 learnings, with handoffs off and
// on. The bound: writing the handoff adds at most 3 ms to a capture.
func BenchmarkCaptureHandoff(b *testing.B) {
	dir, proj := benchMemory(b, 10000)
	tr := benchTranscript(b, b.TempDir(), proj, 200)
	ctx := context.Background()
	r, _ := gitstore.Open(dir)
	i := 0
	for _, on := range []bool{false, true} {
		if _, err := r.SetSetting(ctx, "handoff.enabled", fmt.Sprint(on)); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprint("handoff=", on), func(b *testing.B) {
			for b.Loop() {
				i++
				p, _ := json.Marshal(map[string]any{"session_id": fmt.Sprint("s", i), "hook_event_name": "PreCompact", "trigger": "auto", "cwd": proj, "transcript_path": tr})
				hooks.Run(ctx, hooks.Options{Engine: New(), Harness: "claude", Home: dir, Stdin: bytes.NewReader(p), Stdout: io.Discard, Stderr: io.Discard})
			}
		})
	}
}
