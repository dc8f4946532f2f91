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
	"testing"

	"github.com/reflect-memory/reflect/fixtures"
	"github.com/reflect-memory/reflect/hooks"
)

// BenchmarkRecallHook is the work of a UserPromptSubmit hook in process (no start-up), at
// 10,000 learnings with a fresh index.
func BenchmarkRecallHook(b *testing.B) {
	dir, proj := recallBenchMemory(b, false)
	benchHook(b, dir, map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "the webhook retry deadlock in the postgres migration again", "cwd": proj})
}

// BenchmarkStartHook is the work of a SessionStart hook in process (no start-up), at
// 10,000 learnings with a fresh index, in a project whose branch and five latest commits
// (three files each) are its topics, as bench -recall's.
func BenchmarkStartHook(b *testing.B) {
	dir, proj := recallBenchMemory(b, true)
	benchHook(b, dir, map[string]any{"hook_event_name": "SessionStart", "source": "startup", "cwd": proj})
}

// benchHook runs the hook of payload on the memory at dir, a new session each time.
func benchHook(b *testing.B, dir string, payload map[string]any) {
	ctx := context.Background()
	i := 0
	for b.Loop() {
		i++
		payload["session_id"] = fmt.Sprint("s", i)
		p, _ := json.Marshal(payload)
		var out bytes.Buffer
		hooks.Run(ctx, hooks.Options{Engine: New(), Harness: "claude", Home: dir, Stdin: bytes.NewReader(p), Stdout: &out, Stderr: io.Discard})
		if out.Len() == 0 && i == 1 {
			b.Log("nothing recalled")
		}
	}
}

// recallBenchMemory is a memory of 10,000 synthetic learnings with a fresh index, and the
// agent's project (synthetic project 3); with history, an import of 400 files and five
// commits on a branch touching three each.
func recallBenchMemory(b *testing.B, history bool) (dir, proj string) {
	home, dir := benchRepo(b, 10000)
	proj = filepath.Join(home, "proj")
	git := func(args ...string) {
		b.Helper()
		c := exec.Command("git", append([]string{"-C", proj, "-c", "user.name=b", "-c", "user.email=b@example.com"}, args...)...)
		if out, err := c.CombinedOutput(); err != nil {
			b.Fatal(string(out))
		}
	}
	if err := os.MkdirAll(proj, 0o755); err != nil {
		b.Fatal(err)
	}
	git("init", "-q", "-b", "fix/webhook-retry-deadlock")
	git("remote", "add", "origin", "https://"+fixtures.SynthProject(3)+".git")
	if !history {
		return dir, proj
	}
	write := func(path, text string) {
		p := filepath.Join(proj, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for i := 0; i < 400; i++ {
		write(fmt.Sprintf("internal/pkg%02d/file%02d.go", i%20, i/20), fmt.Sprintf("package pkg%02d // %d\n", i%20, i))
	}
	git("add", "-A")
	git("commit", "-q", "-m", "import")
	for i, subject := range []string{"webhooks: log the delivery id", "db: add the migration lock table",
		"webhooks: retry with backoff", "ci: run the postgres tests", "postgres: retry the migration lock on deadlock"} {
		for k := 0; k < 3; k++ {
			write(fmt.Sprintf("internal/pkg%02d/file%02d.go", (i*3+k)%20, k), fmt.Sprintf("package pkg%02d // changed by %d\n", (i*3+k)%20, i))
		}
		git("commit", "-q", "-am", subject)
	}
	return dir, proj
}
