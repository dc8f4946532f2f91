package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"
)

// runHook runs a hook with extra environment and returns stdout and how long it took.
func runHook(t *testing.T, environ []string, home, harness string, p map[string]any, extra ...string) (string, time.Duration) {
	t.Helper()
	b, _ := json.Marshal(p)
	cmd := exec.Command(reflectBin(t), "--home", home, "hook", harness)
	cmd.Env, cmd.Stdin = append(append([]string{}, environ...), extra...), bytes.NewReader(b)
	var out bytes.Buffer
	cmd.Stdout = &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("hook exited with %v", err)
	}
	return out.String(), time.Since(start)
}

func commitCount(t *testing.T, environ []string, home string) string {
	return run(t, environ, home, "git", "rev-list", "--count", "HEAD")
}

func TestHookContract(t *testing.T) {
	environ := env(t)
	home := initRepo(t, environ)
	src, _ := os.ReadFile(filepath.Join("..", "fixtures", "transcripts", "claude-session.jsonl"))
	tr := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(tr, src, 0o644)
	pre := func(session string) map[string]any {
		return map[string]any{"session_id": session, "transcript_path": tr, "cwd": t.TempDir(), "hook_event_name": "PreCompact", "trigger": "auto"}
	}

	t.Run("REFLECT_INTERNAL does nothing", func(t *testing.T) {
		before := commitCount(t, environ, home)
		out, _ := runHook(t, environ, home, "claude", pre("internal"), "REFLECT_INTERNAL=1")
		if out != "" || commitCount(t, environ, home) != before {
			t.Fatalf("an internal session was captured (stdout %q)", out)
		}
		if _, err := os.Stat(filepath.Join(home, ".git", "reflect", "last-event.json")); err == nil {
			t.Fatal("an internal session left a last-event.json")
		}
	})

	t.Run("no repository", func(t *testing.T) {
		missing := filepath.Join(t.TempDir(), "nowhere")
		out, _ := runHook(t, environ, missing, "claude", pre("s"))
		if out != "" {
			t.Fatalf("stdout %q", out)
		}
		if _, err := os.Stat(missing); err == nil {
			t.Fatal("a hook created a repository")
		}
	})

	t.Run("locked repository gives up at the deadline", func(t *testing.T) {
		fl := flock.New(filepath.Join(home, ".git", "reflect", "locks", "repo"))
		if err := fl.Lock(); err != nil {
			t.Fatal(err)
		}
		before := commitCount(t, environ, home)
		out, d := runHook(t, environ, home, "claude", pre("locked"))
		// counted while the lock is held: the capture the hook hands on (a late-hook) commits
		// once it is released
		wrote := commitCount(t, environ, home) != before
		fl.Unlock()
		if out != "" || wrote {
			t.Fatalf("a hook wrote through the lock (stdout %q)", out)
		}
		if d > 2*time.Second { // capture deadline 500 ms, plus grace and process start
			t.Fatalf("the hook took %v with the repository locked", d)
		}
		logb, _ := os.ReadFile(filepath.Join(home, ".git", "reflect", "log", "reflect.log"))
		if !strings.Contains(string(logb), "busy") {
			t.Fatalf("the log does not say why nothing was captured:\n%s", logb)
		}
		last, _ := os.ReadFile(filepath.Join(home, ".git", "reflect", "last-event.json"))
		if !strings.Contains(string(last), `"error"`) {
			t.Fatalf("last-event.json does not record the failure: %s", last)
		}
	})

	t.Run("a deadline too short to write leaves the repository whole", func(t *testing.T) {
		for i := 0; i < 20; i++ {
			out, _ := runHook(t, environ, home, "claude", pre("rushed-"+string(rune('a'+i))), "GODEBUG=asyncpreemptoff=0")
			if out != "" {
				t.Fatalf("stdout %q", out)
			}
		}
		cfg := filepath.Join(home, "reflect.toml")
		data, _ := os.ReadFile(cfg)
		os.WriteFile(cfg, []byte(strings.Replace(string(data), `capture_timeout = "500ms"`, `capture_timeout = "1ms"`, 1)), 0o644)
		run(t, environ, home, "git", "commit", "-qam", "rush the hooks")
		for i := 0; i < 20; i++ {
			if out, _ := runHook(t, environ, home, "claude", pre("rushed2-"+string(rune('a'+i)))); out != "" {
				t.Fatalf("stdout %q", out)
			}
		}
		os.WriteFile(cfg, data, 0o644)
		run(t, environ, home, "git", "commit", "-qam", "normal deadlines")
		run(t, environ, ".", reflectBin(t), "--home", home, "add", "--global", "--title", "after the rush")
		assertHealthy(t, environ, home)
	})
}
