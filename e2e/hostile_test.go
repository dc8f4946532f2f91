package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofrs/flock"
)

var hookEvents = []string{"SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure",
	"PreCompact", "Stop", "SessionEnd", "Notification", "SubagentStop", "PreToolUse", "Bogus", "",
	// Gemini CLI's, Copilot CLI's and Cursor's own
	"BeforeAgent", "AfterAgent", "AfterTool", "PreCompress", "sessionStart", "userPromptSubmitted",
	"postToolUse", "postToolUseFailure", "agentStop", "preCompact", "sessionEnd", "beforeSubmitPrompt", "stop"}

// hostilePayloads returns at least n payloads that no host sends: truncated, mistyped,
// huge, non-UTF-8, pointing at missing or dangerous transcripts.
func hostilePayloads(rng *rand.Rand, dir string, n int) [][]byte {
	fifo := filepath.Join(dir, "fifo")
	exec.Command("mkfifo", fifo).Run()
	paths := []any{nil, "", "/nonexistent/t.jsonl", dir, "/dev/zero", fifo, "/etc/shadow", 42, []int{1},
		filepath.Join(dir, "garbage.jsonl")}
	os.WriteFile(filepath.Join(dir, "garbage.jsonl"), []byte("{not json\n\x00\xff\xfe\n{\"type\":1}\n"), 0o644)
	weird := []any{nil, 0, -1, 1e308, true, "", "\x00", "\xff\xfe", strings.Repeat("x", 1<<20), []any{}, map[string]any{"a": []any{nil}}, "{\"nested\":", "😀\u202e"}
	pick := func(xs []any) any { return xs[rng.IntN(len(xs))] }
	var out [][]byte
	for len(out) < n {
		ev := hookEvents[rng.IntN(len(hookEvents))]
		p := map[string]any{
			"session_id":      pick([]any{"s-" + fmt.Sprint(rng.IntN(5)), nil, 7, "", "../../etc", strings.Repeat("é", 300)}),
			"transcript_path": pick(paths), "cwd": pick([]any{dir, "/", nil, 3, "/nonexistent", "relative/dir"}),
			"hook_event_name": ev,
		}
		for _, k := range []string{"prompt", "tool_name", "tool_input", "tool_response", "error", "trigger", "reason",
			"last_assistant_message", "stop_hook_active", "source", "model", "turn_id",
			// the other hosts' fields
			"prompt_response", "conversation_id", "workspace_roots", "tool_output", "sessionId", "transcriptPath",
			"toolName", "toolArgs", "toolResult", "cursor_version", "timestamp", "permission_mode"} {
			if rng.IntN(3) == 0 {
				p[k] = pick(weird)
			}
		}
		if rng.IntN(5) == 0 { // a path where the other hosts name it
			p[pick([]any{"transcriptPath", "workspace_roots", "conversation_id", "sessionId"}).(string)] = pick(append(paths, []any{dir}))
		}
		if rng.IntN(4) == 0 {
			p["prompt"] = pick([]any{"remember: never commit .env files", "no, use pnpm instead", "wrong, that broke the build"})
		}
		b, _ := json.Marshal(p)
		switch rng.IntN(6) {
		case 0: // truncated
			b = b[:rng.IntN(len(b)+1)]
		case 1: // bytes flipped, possibly invalid UTF-8
			for k := 0; k < 1+rng.IntN(8) && len(b) > 0; k++ {
				b[rng.IntN(len(b))] = byte(rng.IntN(256))
			}
		case 2: // not an object at all
			b = []byte(pick([]any{"null", "[]", "\"SessionStart\"", "42", "", "   ", "\x00\x01\x02", "{}{}", "{\"hook_event_name\":\"Stop\"}"}).(string))
		}
		out = append(out, b)
	}
	return out
}

// TestHooksSurviveHostilePayloads: every hostile payload exits 0 inside the deadline, with
// empty stdout or one JSON object the hosts accept, and the repository stays sound.
func TestHooksSurviveHostilePayloads(t *testing.T) {
	surviveHostile(t, []string{"claude", "codex"})
}

// TestOtherHostsSurviveHostilePayloads: the same, through `reflect hook
// gemini|copilot|cursor|opencode` (Copilot's and opencode's with an event in argv, or none,
// or one they do not send). Gemini CLI blocks on
// any exit code but 0 and 1, so exit 0 matters most there.
func TestOtherHostsSurviveHostilePayloads(t *testing.T) {
	surviveHostile(t, []string{"gemini", "copilot", "cursor", "opencode"})
}

func surviveHostile(t *testing.T, hosts []string) {
	n := 1000
	if testing.Short() {
		n = 200
	}
	environ := env(t)
	home := initRepo(t, environ)
	bin := reflectBin(t)
	dir := t.TempDir()
	// the memory reads a team (SessionStart pulls it, every recall searches it) and holds a
	// team folder that is not a memory
	run(t, environ, dir, "git", "init", "-q", "--bare", "-b", "main", "team.git")
	run(t, environ, dir, bin, "--home", home, "team", "add", "acme", filepath.Join(dir, "team.git"))
	os.MkdirAll(filepath.Join(home, ".git", "reflect", "teams", "broken", ".git"), 0o755)
	payloads := hostilePayloads(rand.New(rand.NewPCG(3, 4)), dir, n)
	// a second repository stays locked by another writer for the whole run
	locked := initRepo(t, environ)
	lockedCommits := run(t, environ, locked, "git", "rev-list", "--count", "HEAD")
	fl := flock.New(filepath.Join(locked, ".git", "reflect", "locks", "repo"))
	if err := fl.Lock(); err != nil {
		t.Fatal(err)
	}
	homes := []string{home, home, home, filepath.Join(dir, "no-repo"), dir, home, home, home, home, locked}

	var wg sync.WaitGroup
	jobs := make(chan int)
	var mu sync.Mutex
	var slowest time.Duration
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				h := homes[i%len(homes)]
				harness := hosts[i%len(hosts)]
				args := []string{"--home", h, "hook", harness}
				if (harness == "copilot" || harness == "opencode") && i%3 != 0 {
					args = append(args, hookEvents[(i/3)%len(hookEvents)])
				}
				cmd := exec.Command(bin, args...)
				cmd.Env = environ
				cmd.Stdin = bytes.NewReader(payloads[i])
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				start := time.Now()
				err := cmd.Run()
				d := time.Since(start)
				mu.Lock()
				slowest = max(slowest, d)
				mu.Unlock()
				if err != nil {
					t.Errorf("payload %d (%q…): %v\n%s", i, trunc(payloads[i]), err, stderr.String())
					continue
				}
				if d > 3*time.Second {
					t.Errorf("payload %d took %v", i, d)
				}
				if msg := checkHookOutputOf(harness, stdout.Bytes()); msg != "" {
					t.Errorf("payload %d: %s: %q", i, msg, stdout.String())
				}
			}
		}()
	}
	for i := range payloads {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	t.Logf("%d payloads, slowest hook %v", len(payloads), slowest)
	// counted while the lock is held: the captures the hooks handed on (late-hooks) commit
	// once it is released
	got := run(t, environ, locked, "git", "rev-list", "--count", "HEAD")
	fl.Unlock()
	if got != lockedCommits {
		t.Fatalf("hooks committed through another writer's lock: %s commits, had %s", got, lockedCommits)
	}
	waitBackground(locked)
	assertHealthy(t, environ, locked)
	// the drains SessionStart started may still be writing: a work tree mid-write is not
	// what the promise is about (it holds after every reflect command, not during one)
	waitBackground(home)
	assertHealthy(t, environ, home)
	// everything committed is well formed: only captures, learnings and the drains that
	// SessionStart starts in the background, each one valid
	for _, subj := range strings.Split(run(t, environ, home, "git", "log", "--format=%s"), "\n") {
		if !strings.HasPrefix(subj, "capture(") && !strings.HasPrefix(subj, "learn: ") && !strings.HasPrefix(subj, "init:") && !strings.HasPrefix(subj, "drain: ") {
			t.Errorf("unexpected commit %q", subj)
		}
	}
	out, err := exec.Command(bin, "--home", home, "list", "--status", "all").CombinedOutput()
	if err != nil || strings.Contains(string(out), "skipped") {
		t.Fatalf("committed learnings do not all load: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "--home", home, "queue", "list", "--format", "json")
	cmd.Env = environ
	if out, err := cmd.CombinedOutput(); err != nil || strings.Contains(string(out), "skipped") {
		t.Fatalf("committed queue entries do not all load: %v\n%s", err, out)
	}
}

// checkHookOutputOf returns what is wrong with the stdout of `reflect hook host`, or "":
// Gemini CLI reads Claude Code's shape (its hookEventName its own event's); Copilot CLI a
// top-level additionalContext on a session start (both shapes in its PascalCase dialect);
// Cursor additional_context on a session start or a prompt.
func checkHookOutputOf(host string, b []byte) string {
	var top map[string]json.RawMessage
	if len(bytes.TrimSpace(b)) > 0 && json.Unmarshal(b, &top) != nil {
		return "stdout is not one JSON object"
	}
	switch host {
	case "codex":
		return checkHookOutput(b)
	case "claude":
		// a Claude Code entry that Cursor or Copilot CLI ran answers in that host's shape
		if top["additional_context"] != nil && len(top) == 1 {
			return ""
		}
		if top["additionalContext"] != nil {
			return checkHookOutputOf("copilot", b)
		}
		return checkHookOutput(b)
	case "gemini":
		if len(top) == 0 {
			return ""
		}
		var hso struct{ HookEventName string }
		json.Unmarshal(top["hookSpecificOutput"], &hso)
		if len(top) != 1 || (hso.HookEventName != "SessionStart" && hso.HookEventName != "BeforeAgent") {
			return "not Gemini's shape for a session start or a prompt"
		}
	case "copilot":
		for k := range top {
			if k != "additionalContext" && k != "hookSpecificOutput" {
				return "unknown key " + k
			}
		}
		if len(top) > 0 && top["additionalContext"] == nil {
			return "no top-level additionalContext"
		}
	case "cursor":
		for k := range top {
			if k != "additional_context" {
				return "unknown key " + k
			}
		}
	case "opencode": // what reflect's plugin reads
		for k := range top {
			if k != "additionalContext" {
				return "unknown key " + k
			}
		}
	}
	return ""
}

// checkHookOutput returns what is wrong with a hook's stdout, or "".
func checkHookOutput(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return ""
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return "stdout is not one JSON object"
	}
	for k := range top {
		if k != "hookSpecificOutput" {
			return "unknown top-level key " + k
		}
	}
	var hso map[string]any
	if json.Unmarshal(top["hookSpecificOutput"], &hso) != nil {
		return "hookSpecificOutput is not an object"
	}
	for k := range hso {
		if k != "hookEventName" && k != "additionalContext" {
			return "unknown key hookSpecificOutput." + k
		}
	}
	if ev, _ := hso["hookEventName"].(string); ev != "SessionStart" && ev != "UserPromptSubmit" {
		return "context for an event that takes none: " + ev
	}
	return ""
}

func trunc(b []byte) string {
	if len(b) > 80 {
		return string(b[:80])
	}
	return string(b)
}
