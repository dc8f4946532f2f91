package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// standIn writes a fake `claude` (and `codex`) on a PATH of its own. Its behaviour is the
// content of the file "mode" beside it, read at every call:
//
//	good     a claude JSON envelope whose result is a fenced JSON answer
//	prose    the answer after a sentence of prose (codex prints it bare)
//	garbage  a friendly sentence, no JSON
//	flaky    exit 1 "overloaded" on the first two calls, then good
//	hang     sleep far past any time-out
//	auth     exit 1 "Invalid API key · Please run /login"
//	env      the answer's title says what REFLECT_INTERNAL was
//
// Every call is counted in "calls".
func standIn(t *testing.T) (binDir string, setMode func(string), calls func() int) {
	t.Helper()
	dir := t.TempDir()
	answer := `{"learnings":[{"title":"Pin the widget port in tests","body":"The widget service listens on port 10000; tests must use that port.","kind":"fix","confidence":"high","tags":["tests"]}]}`
	envelope, _ := json.Marshal(map[string]any{"type": "result", "subtype": "success", "is_error": false,
		"result": "Here you go:\n```json\n" + answer + "\n```"})
	script := `#!/bin/sh
d="$(dirname "$0")"
n=$(cat "$d/calls" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$d/calls"
mode=$(cat "$d/mode")
name=$(basename "$0")
good() {
  if [ "$name" = claude ]; then cat "$d/envelope.json"; else echo "Sure. The lessons:"; cat "$d/answer.json"; fi
}
case "$mode" in
good) good ;;
prose) echo "I looked at the session carefully."; cat "$d/answer.json"; echo "Hope this helps." ;;
garbage) echo "The session went well, nothing much to add." ;;
flaky) if [ $n -le 2 ]; then echo "API Error: 529 overloaded" >&2; exit 1; fi; good ;;
hang) sleep 30 ;;
auth) echo "Invalid API key · Please run /login" >&2; exit 1 ;;
env) echo "{\"learnings\":[{\"title\":\"internal is $REFLECT_INTERNAL\",\"body\":\"b\",\"kind\":\"rule\"}]}" ;;
esac
`
	for _, f := range []struct{ name, data string }{{"claude", script}, {"codex", script}, {"answer.json", answer}, {"envelope.json", string(envelope)}} {
		mode := os.FileMode(0o644)
		if f.name == "claude" || f.name == "codex" {
			mode = 0o755
		}
		if err := os.WriteFile(filepath.Join(dir, f.name), []byte(f.data), mode); err != nil {
			t.Fatal(err)
		}
	}
	setMode = func(m string) {
		os.WriteFile(filepath.Join(dir, "mode"), []byte(m), 0o644)
		os.Remove(filepath.Join(dir, "calls"))
	}
	calls = func() int {
		b, _ := os.ReadFile(filepath.Join(dir, "calls"))
		var n int
		json.Unmarshal([]byte(strings.TrimSpace(string(b))), &n)
		return n
	}
	return dir, setMode, calls
}

// TestLLMExtractorsThroughTheBinary drains through stand-in claude and codex programs, as a
// user with those CLIs would: each kind of answer ends as the issue says it must.
func TestLLMExtractorsThroughTheBinary(t *testing.T) {
	dir, setMode, calls := standIn(t)
	environ := env(t)
	for i, kv := range environ {
		if strings.HasPrefix(kv, "PATH=") {
			environ[i] = "PATH=" + dir + ":" + strings.TrimPrefix(kv, "PATH=")
		}
	}
	home := initRepo(t, environ)
	bin := reflectBin(t)
	settings := "[drain]\nattempts = 3\nretry_wait = \"10ms\"\ntimeout = \"400ms\"\nmax_calls_per_day = 13\n"
	os.WriteFile(filepath.Join(home, ".git", "reflect", "config.toml"), []byte(settings), 0o644) // local: never committed
	drain := func(extractor string) map[string]any {
		t.Helper()
		cmd := exec.Command(bin, "--home", home, "--format", "json", "drain", "--extractor", extractor, "--max", "1")
		cmd.Env = environ
		out, err := cmd.Output() // stderr may carry a warning (the pause)
		if err != nil {
			t.Fatal(err)
		}
		var rep map[string]any
		if err := json.Unmarshal(out, &rep); err != nil {
			t.Fatal(err, string(out))
		}
		return rep
	}
	num := func(rep map[string]any, k string) int { f, _ := rep[k].(float64); return int(f) }
	first := func(rep map[string]any) map[string]any {
		es, _ := rep["entries"].([]any)
		if len(es) == 0 {
			t.Fatalf("no entry in %v", rep)
		}
		return es[0].(map[string]any)
	}
	queueNotes(t, home, 10)

	setMode("good")
	if rep := drain("claude"); num(rep, "learned") != 1 || calls() != 1 {
		t.Errorf("good: %v (calls %d)", rep, calls())
	}
	if !strings.Contains(run(t, environ, home, "git", "log", "-1", "--format=%s"), "learn: Pin the widget port in tests") {
		t.Error("good: no learn commit")
	}

	setMode("prose")
	if rep := drain("codex"); num(rep, "merged") != 1 { // the same lesson again: seen bumped, no new file
		t.Errorf("prose: %v", rep)
	}

	setMode("env")
	drain("claude")
	if !strings.Contains(run(t, environ, home, "git", "log", "-1", "--format=%s"), "internal is 1") {
		t.Error("the extractor did not run with REFLECT_INTERNAL=1")
	}

	setMode("flaky")
	if rep := drain("claude"); num(rep, "drained") != 1 || first(rep)["attempts"].(float64) != 3 {
		t.Errorf("flaky: %v", rep)
	}

	setMode("hang")
	start := time.Now()
	rep := drain("claude")
	if num(rep, "failed") != 1 || !strings.Contains(first(rep)["failed"].(string), "timed out") || calls() != 3 {
		t.Errorf("hang: %v (calls %d)", rep, calls())
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("hang: three 400 ms attempts took %v", d)
	}

	setMode("garbage")
	rep = drain("claude")
	if num(rep, "failed") != 1 || !strings.Contains(first(rep)["failed"].(string), "nothing much to add") {
		t.Errorf("garbage: %v", rep)
	}
	failed := run(t, environ, home, "git", "ls-files", "queue/failed")
	if strings.Count(failed, "\n")+1 != 2 {
		t.Errorf("queue/failed: %s", failed)
	}

	setMode("auth")
	rep = drain("claude")
	if num(rep, "drained") != 1 || first(rep)["extractor"] != "heuristic" || calls() != 1 {
		t.Errorf("auth: %v (calls %d)", rep, calls())
	}
	status := run(t, environ, ".", bin, "--home", home, "status")
	if !strings.Contains(status, "PAUSED") || !strings.Contains(status, "Invalid API key") {
		t.Errorf("status does not show the pause:\n%s", status)
	}
	setMode("good")
	if rep := drain("claude"); first(rep)["extractor"] != "heuristic" || calls() != 0 {
		t.Errorf("paused: the LLM was called again: %v", rep)
	}
	out := run(t, environ, ".", bin, "--home", home, "queue", "retry", "--all")
	if !strings.Contains(out, "LLM draining resumed") || !strings.Contains(out, "back in the queue") {
		t.Errorf("retry: %s", out)
	}

	// the cap: 13 calls a day; so far 1+1+1+3+3+3+1 = 13 were made
	rep = drain("claude")
	if !strings.Contains(rep["stopped"].(string), "daily cap reached") || calls() != 0 {
		t.Errorf("cap: %v", rep)
	}
	status = run(t, environ, ".", bin, "--home", home, "status")
	if !strings.Contains(status, "CAPPED") {
		t.Errorf("status does not show the cap:\n%s", status)
	}
	assertHealthy(t, environ, home)
}
