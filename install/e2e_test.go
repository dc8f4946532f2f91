package install

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reflect-memory/reflect/internal/testenv"
)

// TestInstalledCommandsReachTheHook is the end-to-end check of the wiring: it builds the real
// reflect binary (in a directory with a space, so the command must be quoted), installs it into
// a private CLAUDE_CONFIG_DIR and CODEX_HOME, reads the installed commands back, and runs them
// through sh -c with the hosts' payloads on stdin, as the hosts do. A PreCompact with a
// transcript must leave a capture commit in the knowledge repository.
func TestInstalledCommandsReachTheHook(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the reflect binary")
	}
	for _, tool := range []string{"go", "git", "sh"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s", tool)
		}
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "my tools", "reflect")
	build := exec.Command("go", "build", "-o", bin, "github.com/reflect-memory/reflect/cmd/reflect")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	home := filepath.Join(tmp, "home")
	memory := filepath.Join(tmp, "memory")
	work := filepath.Join(tmp, "work")
	os.MkdirAll(home, 0o755)
	os.MkdirAll(work, 0o755)
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", filepath.Join(tmp, "claude"))
	t.Setenv("CODEX_HOME", filepath.Join(tmp, "codex"))
	claudeTranscript, _ := filepath.Abs("../fixtures/transcripts/claude-session.jsonl")
	codexTranscript, _ := filepath.Abs("../fixtures/transcripts/codex-rollout.jsonl")

	cases := []struct {
		harness, transcript string
		payload             func(event, transcript string) map[string]any
	}{
		{Claude, claudeTranscript, func(event, tr string) map[string]any {
			p := map[string]any{"session_id": "5b0c2f7e-3d1a-4c8e-9f2b-7a6d1e0c4b93", "transcript_path": tr,
				"cwd": work, "hook_event_name": event}
			if event == "SessionStart" {
				p["source"], p["model"] = "startup", "claude-opus-4-5"
			} else {
				p["trigger"], p["custom_instructions"] = "auto", ""
			}
			return p
		}},
		{Codex, codexTranscript, func(event, tr string) map[string]any {
			p := map[string]any{"session_id": "019cb7e4-2f61-7a3d-8e52-6c0d9b4a7f18", "transcript_path": tr,
				"cwd": work, "hook_event_name": event, "model": "gpt-5.5"}
			if event == "SessionStart" {
				p["source"], p["permission_mode"] = "startup", "default"
			} else {
				p["turn_id"], p["trigger"] = "019cb7e4-5a12-7c40-9b83-1e6f2d8c3a54", "auto"
			}
			return p
		}},
	}
	for _, tc := range cases {
		t.Run(tc.harness, func(t *testing.T) {
			path, err := ConfigPath(tc.harness, false, work)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Install(context.Background(), Options{Harness: tc.harness, Path: path, Binary: bin, Home: memory}); err != nil {
				t.Fatal(err)
			}
			commands := map[string]string{}
			for ev, groups := range readSettings(t, path).Hooks {
				for _, g := range groups {
					for _, h := range g.Hooks {
						commands[ev] = h.Command
					}
				}
			}
			before := gitCount(t, memory)
			var last string
			for _, ev := range []string{"SessionStart", "PreCompact"} {
				cmd := commands[ev]
				if cmd == "" {
					t.Fatalf("no %s command installed: %v", ev, commands)
				}
				if want := Command(bin, tc.harness); cmd != want || !strings.HasPrefix(cmd, "'") {
					t.Fatalf("%s command %q, want %q (quoted)", ev, cmd, want)
				}
				payload, _ := json.Marshal(tc.payload(ev, tc.transcript))
				sh := exec.Command("sh", "-c", cmd)
				sh.Dir = work
				sh.Stdin = bytes.NewReader(payload)
				sh.Env = append(os.Environ(), "REFLECT_HOME="+memory, "GIT_CONFIG_NOSYSTEM=1")
				var stdout, stderr bytes.Buffer
				sh.Stdout, sh.Stderr = &stdout, &stderr
				if err := sh.Run(); err != nil {
					t.Fatalf("%s: sh -c %q: %v\n%s", ev, cmd, err, stderr.String())
				}
				if out := strings.TrimSpace(stdout.String()); out != "" && !json.Valid([]byte(out)) {
					t.Fatalf("%s printed something that is not JSON: %q", ev, out)
				}
				last = ev
			}
			// SessionStart may have started a drain of what the other host queued: wait for it
			testenv.WaitDetached(memory)
			captures := 0
			for _, subject := range strings.Split(git(t, memory, "log", "--format=%s", fmt.Sprintf("-%d", gitCount(t, memory)-before)), "\n") {
				if strings.HasPrefix(subject, "capture(precompact): ") {
					captures++
				}
			}
			if captures != 1 || last != "PreCompact" {
				t.Fatalf("%d capture commits after PreCompact, want 1", captures)
			}
		})
	}
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	c := exec.Command("git", append([]string{"-C", dir}, args...)...)
	c.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func gitCount(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	for _, c := range git(t, dir, "rev-list", "--count", "HEAD") {
		n = n*10 + int(c-'0')
	}
	return n
}
