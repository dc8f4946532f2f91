package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// hook runs `reflect hook harness` with payload p and returns its stdout.
func hook(t *testing.T, environ []string, home, harness string, p map[string]any) string {
	t.Helper()
	b, _ := json.Marshal(p)
	cmd := exec.Command(reflectBin(t), "--home", home, "hook", harness)
	cmd.Env, cmd.Stdin = environ, bytes.NewReader(b)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("hook %s %v: %v\n%s", harness, p["hook_event_name"], err, errb.String())
	}
	if msg := checkHookOutput(out.Bytes()); msg != "" {
		t.Fatalf("hook %v: %s: %s", p["hook_event_name"], msg, out.String())
	}
	return out.String()
}

func subjects(t *testing.T, environ []string, home string) []string {
	t.Helper()
	return strings.Split(run(t, environ, home, "git", "log", "--reverse", "--format=%s"), "\n")[1:] // without init
}

// grow appends n bytes worth of copies of the transcript's own lines (a session going on).
func grow(t *testing.T, path string, n int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(bytes.TrimRight(data, "\n"), []byte("\n"))
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for written := 0; written < n; {
		for _, l := range lines {
			l = append(bytes.TrimRight(l, "\n"), '\n')
			f.Write(l)
			written += len(l)
		}
	}
}

// projectRepo makes a project checkout with a remote, as the agent's cwd.
func projectRepo(t *testing.T, environ []string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "auth-service")
	os.MkdirAll(dir, 0o755)
	run(t, environ, dir, "git", "init", "-q", "-b", "feature/oauth-redirect")
	run(t, environ, dir, "git", "remote", "add", "origin", "git@github.com:acme/auth-service.git")
	run(t, environ, dir, "git", "commit", "-q", "--allow-empty", "-m", "start")
	return dir
}

func TestReplayClaudeSession(t *testing.T) {
	replay(t, "claude", "claude-session.jsonl", func(ev, session, transcript, cwd string) map[string]any {
		return map[string]any{"session_id": session, "transcript_path": transcript, "cwd": cwd,
			"hook_event_name": ev, "permission_mode": "default"}
	}, func(p map[string]any) { // a failed Bash call, as Claude Code reports it
		p["hook_event_name"] = "PostToolUseFailure"
		p["tool_name"] = "Bash"
		p["tool_input"] = map[string]any{"command": "npm install", "description": "Install dependencies"}
		p["tool_use_id"] = "toolu_01"
		p["error"] = "Exit code 1\nnpm ERR! code EUSAGE\nnpm ERR! this project uses pnpm"
		p["is_interrupt"] = false
	})
}

func TestReplayCodexSession(t *testing.T) {
	replay(t, "codex", "codex-rollout.jsonl", func(ev, session, transcript, cwd string) map[string]any {
		return map[string]any{"session_id": session, "transcript_path": transcript, "cwd": cwd,
			"hook_event_name": ev, "model": "gpt-5.5", "permission_mode": "default", "turn_id": "019e-turn"}
	}, func(p map[string]any) { // a failed shell call, as Codex reports it
		p["hook_event_name"] = "PostToolUse"
		p["tool_name"] = "Bash"
		p["tool_input"] = map[string]any{"command": "npm install"}
		p["tool_use_id"] = "call_01"
		p["tool_response"] = map[string]any{"output": "npm ERR! this project uses pnpm", "exit_code": 1}
	})
}

// replay drives one whole session through the hooks and checks every commit it makes.
func replay(t *testing.T, harness, fixture string, payload func(ev, session, transcript, cwd string) map[string]any, failure func(map[string]any)) {
	environ := env(t)
	home := initRepo(t, environ)
	cwd := projectRepo(t, environ)
	src, err := os.ReadFile(filepath.Join("..", "fixtures", "transcripts", fixture))
	if err != nil {
		t.Skipf("fixture: %v", err)
	}
	tr := filepath.Join(t.TempDir(), "session.jsonl")
	os.WriteFile(tr, src, 0o644)
	session := "9f0e2b1c-" + harness
	ev := func(name string) map[string]any { return payload(name, session, tr, cwd) }

	if out := hook(t, environ, home, harness, merge(ev("SessionStart"), map[string]any{"source": "startup"})); out != "" {
		t.Errorf("SessionStart printed %q with no learnings to recall", out)
	}
	hook(t, environ, home, harness, merge(ev("UserPromptSubmit"), map[string]any{"prompt": "install the dependencies and run the tests"}))
	p := ev("")
	failure(p)
	hook(t, environ, home, harness, p)
	if got := subjects(t, environ, home); len(got) != 0 {
		t.Fatalf("commits before any correction: %q", got)
	}
	hook(t, environ, home, harness, merge(ev("UserPromptSubmit"), map[string]any{"prompt": "no, use pnpm instead of npm"}))
	hook(t, environ, home, harness, merge(ev("UserPromptSubmit"), map[string]any{"prompt": "no, I meant the other folder"})) // watcher spent
	hook(t, environ, home, harness, merge(ev("UserPromptSubmit"), map[string]any{"prompt": "remember: the CI runs on Node 22, not 20"}))
	hook(t, environ, home, harness, merge(ev("PreCompact"), map[string]any{"trigger": "auto", "custom_instructions": ""}))
	for i := 0; i < 5; i++ { // nothing new: Stop after Stop commits nothing
		hook(t, environ, home, harness, merge(ev("Stop"), map[string]any{"stop_hook_active": false, "last_assistant_message": "Done."}))
	}
	grow(t, tr, 1000) // a little more: below the Stop gate
	hook(t, environ, home, harness, merge(ev("Stop"), map[string]any{"stop_hook_active": false, "last_assistant_message": "Done."}))
	grow(t, tr, 40<<10) // substantial growth: Stop captures again
	hook(t, environ, home, harness, merge(ev("Stop"), map[string]any{"stop_hook_active": false, "last_assistant_message": "Done."}))
	hook(t, environ, home, harness, merge(ev("Stop"), map[string]any{"stop_hook_active": false, "last_assistant_message": "Done."}))
	grow(t, tr, 500) // the session's last words: SessionEnd bypasses the Stop gate
	hook(t, environ, home, harness, merge(ev("SessionEnd"), map[string]any{"reason": "other"}))
	hook(t, environ, home, harness, merge(ev("SessionEnd"), map[string]any{"reason": "other"})) // nothing new

	want := []string{
		"learn: Use pnpm instead of npm (correction in 9f0e2b1c)",
		"learn: The CI runs on Node 22, not 20 (remember in 9f0e2b1c)",
		"capture(precompact): " + hname(harness) + " session 9f0e2b1c in github.com/acme/auth-service",
		"capture(stop): " + hname(harness) + " session 9f0e2b1c in github.com/acme/auth-service",
		"capture(session-end): " + hname(harness) + " session 9f0e2b1c in github.com/acme/auth-service",
	}
	got := subjects(t, environ, home)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("commits:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	assertHealthy(t, environ, home)
	// the session is one pending entry, rewritten by each capture until drained
	if files := strings.Fields(run(t, environ, home, "git", "ls-files", "queue")); len(files) != 1 {
		t.Fatalf("queue files: %v", files)
	}
	corr := run(t, environ, ".", reflectBin(t), "--home", home, "list", "--kind", "correction", "--format", "json")
	for _, want := range []string{`"confidence": "low"`, `"project": "github.com/acme/auth-service"`, `"harness": "` + hname(harness) + `"`} {
		if !strings.Contains(corr, want) {
			t.Errorf("correction learning lacks %s:\n%s", want, corr)
		}
	}
	last, err := os.ReadFile(filepath.Join(home, ".git", "reflect", "last-event.json"))
	if err != nil || !strings.Contains(string(last), `"event":"SessionEnd"`) {
		t.Errorf("last-event.json = %s, %v", last, err)
	}
}

func hname(h string) string {
	if h == "claude" {
		return "claude-code"
	}
	return h
}

func merge(a, b map[string]any) map[string]any {
	for k, v := range b {
		a[k] = v
	}
	return a
}
