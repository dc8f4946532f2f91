package hooks

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
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/index"
)

// BenchmarkRecallHook is the work of a UserPromptSubmit hook in process (no start-up), at
// 10,000 learnings with a fresh index.
func BenchmarkRecallHook(b *testing.B) {
	home := b.TempDir()
	b.Setenv("HOME", home)
	b.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	ctx := context.Background()
	dir := filepath.Join(home, "mem")
	if _, _, err := gitstore.Init(ctx, dir, gitstore.InitOptions{}); err != nil {
		b.Fatal(err)
	}
	if err := fixtures.BuildRepo(ctx, dir, 10000, 100, 20); err != nil {
		b.Fatal(err)
	}
	r, _ := gitstore.Open(dir)
	if _, err := index.Rebuild(ctx, r, index.Options{}); err != nil {
		b.Fatal(err)
	}
	proj := filepath.Join(home, "proj")
	for _, args := range [][]string{{"init", "-q", proj}, {"-C", proj, "remote", "add", "origin", "https://" + fixtures.SynthProject(3) + ".git"}} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			b.Fatal(string(out))
		}
	}
	i := 0
	for b.Loop() {
		i++
		p, _ := json.Marshal(map[string]any{"session_id": fmt.Sprint("s", i), "hook_event_name": "UserPromptSubmit", "prompt": "the webhook retry deadlock in the postgres migration again", "cwd": proj})
		var out bytes.Buffer
		Run(ctx, Options{Harness: "claude", Home: dir, Stdin: bytes.NewReader(p), Stdout: &out, Stderr: io.Discard})
		if out.Len() == 0 && i == 1 {
			b.Log("nothing recalled")
		}
	}
	_ = os.Remove
}
