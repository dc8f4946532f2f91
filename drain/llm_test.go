//go:build unix

package drain

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/handoff"
	"github.com/reflect-memory/reflect/queue"
)

// The claude, codex and command extractors are tested against stand-in /bin/sh scripts put
// first on PATH. A script finds the files a test left for it (and leaves what it saw) in its
// own directory, "$(dirname "$0")".

// llmStub writes an executable script name into a fresh directory put first on PATH and
// returns the directory.
func llmStub(t *testing.T, name, body string) string {
	t.Helper()
	dir := t.TempDir()
	script := "#!/bin/sh\nd=$(dirname \"$0\")\n" + body + "\n"
	if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return dir
}

// llmRecord is script text that saves the arguments (NUL-separated), REFLECT_INTERNAL, the
// extra variable of llmOpts and the working directory.
const llmRecord = `for a in "$@"; do printf '%s\0' "$a"; done > "$d/args"
printf '%s' "$REFLECT_INTERNAL" > "$d/internal"
printf '%s' "$STUB_EXTRA" > "$d/extra"
pwd > "$d/pwd"`

func llmOpts() LLMOptions {
	return LLMOptions{Timeout: 5 * time.Second, Env: []string{"STUB_EXTRA=from-test", "REFLECT_INTERNAL=0"}}
}

func llmInput() Input {
	exit := 1
	return Input{
		Entry: &queue.Entry{
			ID: "q-01JD8Z6Q4V0R5T2W9K3M7N1B6C", Harness: "claude-code", Session: "4c2ddfdc-1111", Trigger: "precompact",
			Project: "github.com/acme/auth-service", Branch: "fix/oauth", Machine: "laptop-a",
			Digest: queue.Digest{Prompts: 1, Failures: 1, Notes: []queue.Note{
				{Kind: queue.NotePrompt, Text: "the OAuth redirect fails with state mismatch"},
				{Kind: queue.NoteFailure, Tool: "Bash", Input: "go test ./internal/auth", ExitCode: &exit, Text: "--- FAIL: TestRedirect\nstate mismatch"},
				{Kind: queue.NoteFollowup, Text: "The state is compared before URL-decoding."},
				{Kind: queue.NoteConclusion, Text: "Fixed: decode the state param first; tests pass."},
			}},
		},
		Existing: []Existing{{ID: answerID1, Title: "Run go test with -race", Kind: "rule", Body: "Always run the tests with -race."}},
	}
}

const llmGoodAnswer = `{"learnings":[{"title":"Decode the OAuth state before comparing","body":"The redirect handler compared the raw state param.","kind":"fix","confidence":"high","files":["internal/auth/redirect.go"]}]}`

// writeFile leaves data for a script.
func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// claudeOut is what claude -p --output-format json prints.
func claudeOut(t *testing.T, isError bool, result string) []byte {
	t.Helper()
	subtype := "success"
	if isError {
		subtype = "error_during_execution"
	}
	data, err := json.Marshal(map[string]any{"type": "result", "subtype": subtype, "is_error": isError, "result": result,
		"duration_ms": 2000, "num_turns": 1, "session_id": "s-1", "total_cost_usd": 0.01,
		"usage": map[string]any{"input_tokens": 1200, "output_tokens": 80, "cache_read_input_tokens": 0}})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestClaudeGoodAnswer(t *testing.T) {
	dir := llmStub(t, "claude", llmRecord+"\ncat \"$d/out.json\"")
	writeFile(t, filepath.Join(dir, "out.json"), claudeOut(t, false, "```json\n"+llmGoodAnswer+"\n```"))
	o := llmOpts()
	o.Model = "sonnet"
	ext := Claude(o)
	if ext.Name() != "claude" || !ext.LLM() {
		t.Fatalf("name %q, llm %v", ext.Name(), ext.LLM())
	}
	in := llmInput()
	props, usage, err := ext.Extract(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(props) != 1 || props[0].Title != "Decode the OAuth state before comparing" || props[0].Kind != "fix" || props[0].Files[0] != "internal/auth/redirect.go" {
		t.Fatalf("proposals %+v", props)
	}
	prompt := BuildPrompt(in)
	if usage.Calls != 1 || usage.InputTokens != len(prompt)/4 {
		t.Fatalf("usage %+v, prompt %d bytes", usage, len(prompt))
	}
	args := strings.Split(strings.TrimSuffix(readFile(t, filepath.Join(dir, "args")), "\x00"), "\x00")
	want := []string{"-p", prompt, "--output-format", "json", "--tools", "", "--strict-mcp-config", "--disallowedTools", claudeTools, "--model", "sonnet"}
	if fmt.Sprint(args) != fmt.Sprint(want) {
		t.Fatalf("args %q", args)
	}
	checkChildEnv(t, dir)
}

// A CLI from before --tools and --strict-mcp-config refuses them: the extraction runs again
// with the deny list alone, once.
func TestClaudeLegacyFlags(t *testing.T) {
	dir := llmStub(t, "claude", llmRecord+`
echo run >> "$d/runs"
for a in "$@"; do
	if [ "$a" = --tools ]; then echo "error: unknown option '--tools'" >&2; exit 1; fi
done
cat "$d/out.json"`)
	writeFile(t, filepath.Join(dir, "out.json"), claudeOut(t, false, llmGoodAnswer))
	in := llmInput()
	props, _, err := Claude(llmOpts()).Extract(context.Background(), in)
	if err != nil || len(props) != 1 {
		t.Fatalf("proposals %+v, %v", props, err)
	}
	args := strings.Split(strings.TrimSuffix(readFile(t, filepath.Join(dir, "args")), "\x00"), "\x00")
	want := []string{"-p", BuildPrompt(in), "--output-format", "json", "--disallowedTools", claudeTools}
	if fmt.Sprint(args) != fmt.Sprint(want) {
		t.Fatalf("args %q", args)
	}
	if runs := strings.Count(readFile(t, filepath.Join(dir, "runs")), "run"); runs != 2 {
		t.Fatalf("%d runs, want the refused one and one more", runs)
	}
}

// checkChildEnv checks what the stand-in saw: REFLECT_INTERNAL=1 (whatever the environment
// said), the extra environment, and a temporary working directory removed afterwards.
func checkChildEnv(t *testing.T, dir string) {
	t.Helper()
	if got := readFile(t, filepath.Join(dir, "internal")); got != "1" {
		t.Errorf("the child saw REFLECT_INTERNAL=%q", got)
	}
	if got := readFile(t, filepath.Join(dir, "extra")); got != "from-test" {
		t.Errorf("the child saw STUB_EXTRA=%q", got)
	}
	pwd := strings.TrimSpace(readFile(t, filepath.Join(dir, "pwd")))
	cwd, _ := os.Getwd()
	if pwd == cwd || !strings.Contains(filepath.Base(pwd), "reflect-extract-") {
		t.Errorf("the child ran in %s", pwd)
	}
	if _, err := os.Stat(pwd); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the child's directory %s is left behind (%v)", pwd, err)
	}
}

func TestClaudeProseWrappedAnswer(t *testing.T) {
	dir := llmStub(t, "claude", `cat "$d/out.json"`)
	writeFile(t, filepath.Join(dir, "out.json"), claudeOut(t, false, "Looking at the session, one lesson stands out:\n\n"+llmGoodAnswer+"\n\nThat is all."))
	props, _, err := Claude(llmOpts()).Extract(context.Background(), llmInput())
	if err != nil || len(props) != 1 {
		t.Fatalf("%+v %v", props, err)
	}
}

func TestClaudeNothingLearned(t *testing.T) {
	dir := llmStub(t, "claude", `cat "$d/out.json"`)
	writeFile(t, filepath.Join(dir, "out.json"), claudeOut(t, false, `{"learnings": []}`))
	props, usage, err := Claude(llmOpts()).Extract(context.Background(), llmInput())
	if err != nil || len(props) != 0 || usage.Calls != 1 {
		t.Fatalf("%+v %+v %v", props, usage, err)
	}
}

func TestClaudeErrors(t *testing.T) {
	cases := []struct {
		name   string
		result string
		exit   int
		want   error
	}{
		{"auth, exit 1", "Invalid API key · Please run /login", 1, ErrPause},
		{"auth, exit 0", "Invalid API key · Please run /login", 0, ErrPause},
		{"credit balance", "Credit balance is too low", 1, ErrPause},
		{"usage limit", "Claude AI usage limit reached|1767225600", 1, ErrPause},
		{"overloaded", `API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, 1, ErrTransient},
		{"500", "API Error: 500 Internal server error", 1, ErrTransient},
		{"rate limit", "API Error: 429 rate_limit_error", 1, ErrTransient},
		{"unknown", "something broke", 1, ErrTransient},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := llmStub(t, "claude", `cat "$d/out.json"; exit `+strconv.Itoa(c.exit))
			writeFile(t, filepath.Join(dir, "out.json"), claudeOut(t, true, c.result))
			_, usage, err := Claude(llmOpts()).Extract(context.Background(), llmInput())
			if !errors.Is(err, c.want) || usage.Calls != 1 {
				t.Fatalf("want %v, got %v (usage %+v)", c.want, err, usage)
			}
			if !strings.HasPrefix(err.Error(), "claude: ") {
				t.Fatalf("the error should name the extractor: %v", err)
			}
		})
	}
}

func TestClaudeGarbageIsBadAnswer(t *testing.T) {
	dir := llmStub(t, "claude", `cat "$d/out.json"`)
	writeFile(t, filepath.Join(dir, "out.json"), claudeOut(t, false, "I could not find anything worth keeping, sorry."))
	_, _, err := Claude(llmOpts()).Extract(context.Background(), llmInput())
	if !errors.Is(err, ErrBadAnswer) || !strings.Contains(err.Error(), "I could not find anything") {
		t.Fatalf("want ErrBadAnswer quoting the answer, got %v", err)
	}
}

func TestCodexGoodAnswer(t *testing.T) {
	dir := llmStub(t, "codex", llmRecord+`
echo "OpenAI Codex v0.50 (research preview)" >&2
echo "thinking about the session..." >&2
printf '%s\n' "Here are the learnings:" '`+"```json"+`'
printf '{"learnings":[{"title":"internal=%s","kind":"rule"}]}\n' "$REFLECT_INTERNAL"
echo '`+"```"+`'`)
	o := llmOpts()
	o.Model = "gpt-5-codex"
	ext := Codex(o)
	if ext.Name() != "codex" || !ext.LLM() {
		t.Fatalf("name %q, llm %v", ext.Name(), ext.LLM())
	}
	in := llmInput()
	props, usage, err := ext.Extract(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(props) != 1 || props[0].Title != "internal=1" || props[0].Confidence != "medium" {
		t.Fatalf("proposals %+v", props)
	}
	prompt := BuildPrompt(in)
	if usage.Calls != 1 || usage.InputTokens != len(prompt)/4 {
		t.Fatalf("usage %+v", usage)
	}
	args := strings.Split(strings.TrimSuffix(readFile(t, filepath.Join(dir, "args")), "\x00"), "\x00")
	want := []string{"exec", "--skip-git-repo-check", "--sandbox", "read-only", "--model", "gpt-5-codex", prompt}
	if fmt.Sprint(args) != fmt.Sprint(want) {
		t.Fatalf("args %q", args)
	}
	checkChildEnv(t, dir)
}

func TestCodexGarbageIsBadAnswer(t *testing.T) {
	llmStub(t, "codex", `echo "The session fixed a bug in the redirect handler."`)
	_, usage, err := Codex(llmOpts()).Extract(context.Background(), llmInput())
	if !errors.Is(err, ErrBadAnswer) || usage.Calls != 1 {
		t.Fatalf("want ErrBadAnswer, got %v", err)
	}
}

func TestCodexFailures(t *testing.T) {
	cases := []struct {
		name   string
		script string
		want   error
	}{
		{"overloaded", `echo "ERROR: the model is overloaded, try again later" >&2; exit 1`, ErrTransient},
		{"503", `echo "unexpected status 503 Service Unavailable" >&2; exit 1`, ErrTransient},
		{"429", `echo "ERROR: 429 Too Many Requests: rate limit reached for requests" >&2; exit 1`, ErrTransient},
		{"crash", `echo "panic: something" >&2; exit 2`, ErrTransient},
		{"killed", `kill -9 $$`, ErrTransient},
		{"not logged in", `echo "Error: Not logged in. Run codex login" >&2; exit 1`, ErrPause},
		{"401", `echo "ERROR: unexpected status 401 Unauthorized: Incorrect API key provided" >&2; exit 1`, ErrPause},
		{"403", `echo "ERROR: 403 Forbidden" >&2; exit 1`, ErrPause},
		{"quota", `echo "ERROR: 429 insufficient_quota: You exceeded your current quota, check your plan and billing details" >&2; exit 1`, ErrPause},
		{"usage limit", `echo "ERROR: You've hit your usage limit. Try again in 3 hours." >&2; exit 1`, ErrPause},
		{"no answer, auth on stderr", `echo "authentication required" >&2`, ErrPause},
		// codex echoes the prompt on stderr: a 401 in the session's digest is not the program's
		{"prompt echoed", `eval "last=\${$#}"; printf 'user\n%s\nERROR: stream disconnected before completion\n' "$last" >&2; exit 1`, ErrTransient},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			llmStub(t, "codex", c.script)
			in := llmInput()
			in.Entry.Digest.Notes[1].Text = "HTTP 401 Unauthorized: invalid api key, please login"
			_, _, err := Codex(llmOpts()).Extract(context.Background(), in)
			if !errors.Is(err, c.want) {
				t.Fatalf("want %v, got %v", c.want, err)
			}
		})
	}
}

func TestHangTimesOutAndKillsTheGroup(t *testing.T) {
	// the shell starts a child of its own: killing the shell alone would leave it behind,
	// holding the output pipe
	dir := llmStub(t, "codex", `echo $$ > "$d/pid"; sleep 30 & echo $! > "$d/child"; wait; echo '[]'`)
	o := llmOpts()
	o.Timeout = 300 * time.Millisecond
	start := time.Now()
	_, usage, err := Codex(o).Extract(context.Background(), llmInput())
	took := time.Since(start)
	if !errors.Is(err, ErrTransient) || !strings.Contains(err.Error(), "timed out") || usage.Calls != 1 {
		t.Fatalf("want a transient time-out, got %v (usage %+v)", err, usage)
	}
	if took > time.Second {
		t.Fatalf("took %s to give up", took)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(readFile(t, filepath.Join(dir, "pid"))))
	if err != nil {
		t.Fatal(err)
	}
	if left := groupMembers(pid, time.Second); len(left) > 0 {
		t.Fatalf("process group %d still has live processes: %v", pid, left)
	}
	child, err := strconv.Atoi(strings.TrimSpace(readFile(t, filepath.Join(dir, "child"))))
	if err != nil {
		t.Fatal(err)
	}
	if !gone(child, time.Second) {
		_ = syscall.Kill(child, syscall.SIGKILL)
		t.Fatalf("the script's child %d outlived it", child)
	}
}

// groupMembers waits up to wait for process group pgid to be gone and returns its live
// members when it is not. Zombies count as gone: an init that does not reap its adopted
// children (as in some containers) keeps them around.
func groupMembers(pgid int, wait time.Duration) []int {
	deadline := time.Now().Add(wait)
	for {
		if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
			return nil
		}
		live := liveMembers(pgid)
		if len(live) == 0 || time.Now().After(deadline) {
			return live
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// gone waits up to wait for process pid to be dead (or a zombie).
func gone(pid int, wait time.Duration) bool {
	deadline := time.Now().Add(wait)
	for {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return true
		}
		if data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
			if i := bytes.LastIndexByte(data, ')'); i >= 0 {
				if f := strings.Fields(string(data[i+1:])); len(f) > 0 && (f[0] == "Z" || f[0] == "X") {
					return true
				}
			}
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// liveMembers lists the processes of group pgid that are not zombies, from /proc; without
// /proc it cannot tell and reports the group as live.
func liveMembers(pgid int) []int {
	procs, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil || len(procs) == 0 {
		return []int{pgid}
	}
	var live []int
	for _, p := range procs {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...
		i := bytes.LastIndexByte(data, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(data[i+1:]))
		if len(f) < 3 || f[2] != strconv.Itoa(pgid) || f[0] == "Z" || f[0] == "X" {
			continue
		}
		pid, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(p, "/proc/"), "/stat"))
		live = append(live, pid)
	}
	return live
}

func TestCallerCancelIsNotTransient(t *testing.T) {
	llmStub(t, "codex", `sleep 30`)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, _, err := Codex(llmOpts()).Extract(ctx, llmInput())
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrTransient) {
		t.Fatalf("want the caller's context error, got %v", err)
	}
}

func TestMissingBinaryPauses(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for _, ext := range []Extractor{Claude(llmOpts()), Codex(llmOpts()), Command("/nonexistent/extract.sh", llmOpts()), Command("no-such-extractor", llmOpts())} {
		_, usage, err := ext.Extract(context.Background(), llmInput())
		if !errors.Is(err, ErrPause) || usage.Calls != 0 {
			t.Errorf("%s: want ErrPause and no call, got %v (usage %+v)", ext.Name(), err, usage)
			continue
		}
		bin := strings.TrimPrefix(ext.Name(), "command:")
		if !strings.Contains(err.Error(), bin) {
			t.Errorf("%s: the error should name %s: %v", ext.Name(), bin, err)
		}
	}
}

func TestCommandGetsInputOnStdin(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "extract.sh")
	script := `#!/bin/sh
d=$(dirname "$0")
cat > "$d/stdin.json"
printf '%s' "$REFLECT_INTERNAL" > "$d/internal"
printf '%s' "$REFLECT_MODEL" > "$d/model"
printf '%s' "$STUB_EXTRA" > "$d/extra"
pwd > "$d/pwd"
echo '[{"title":"From the command","kind":"recipe","tags":["cli"]}]'
`
	writeFile(t, path, []byte(script))
	if err := os.Chmod(path, 0o755); err != nil {
		t.Fatal(err)
	}
	o := llmOpts()
	o.Model = "local-model"
	ext := Command(path, o)
	if ext.Name() != "command:"+path || !ext.LLM() {
		t.Fatalf("name %q, llm %v", ext.Name(), ext.LLM())
	}
	in := llmInput()
	props, usage, err := ext.Extract(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(props) != 1 || props[0].Title != "From the command" || props[0].Kind != "recipe" {
		t.Fatalf("proposals %+v", props)
	}
	raw := readFile(t, filepath.Join(dir, "stdin.json"))
	var got struct {
		Entry    *queue.Entry `json:"entry"`
		Existing []Existing   `json:"existing"`
	}
	if err := json.Unmarshal([]byte(raw), &got); err != nil {
		t.Fatalf("stdin is not JSON: %v\n%s", err, raw)
	}
	if got.Entry == nil || got.Entry.ID != in.Entry.ID || len(got.Entry.Digest.Notes) != 4 || len(got.Existing) != 1 || got.Existing[0].ID != answerID1 {
		t.Fatalf("stdin %s", raw)
	}
	if usage.Calls != 1 || usage.InputTokens != len(strings.TrimSpace(raw))/4 {
		t.Fatalf("usage %+v for %d bytes", usage, len(raw))
	}
	if m := readFile(t, filepath.Join(dir, "model")); m != "local-model" {
		t.Fatalf("REFLECT_MODEL=%q", m)
	}
	checkChildEnv(t, dir)
}

func TestCommandRelativePathAndEmptyExisting(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "x.sh"), []byte("#!/bin/sh\ncat > \"$(dirname \"$0\")/stdin.json\"\necho '{\"learnings\":[]}'\n"))
	if err := os.Chmod(filepath.Join(dir, "x.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	in := llmInput()
	in.Existing = nil
	props, _, err := Command("./x.sh", llmOpts()).Extract(context.Background(), in)
	if err != nil || len(props) != 0 {
		t.Fatalf("%+v %v", props, err)
	}
	if raw := readFile(t, filepath.Join(dir, "stdin.json")); !strings.Contains(raw, `"existing":[]`) {
		t.Fatalf("existing should be an empty list: %s", raw)
	}
}

func TestCommandFailures(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "extract.sh")
	writeFile(t, path, []byte("#!/bin/sh\ncat >/dev/null\necho 'credit balance is too low' >&2\nexit 3\n"))
	if err := os.Chmod(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Command(path, llmOpts()).Extract(context.Background(), llmInput()); !errors.Is(err, ErrPause) {
		t.Fatalf("want ErrPause, got %v", err)
	}
	notExec := filepath.Join(dir, "plain.txt")
	writeFile(t, notExec, []byte("#!/bin/sh\necho []\n"))
	if _, _, err := Command(notExec, llmOpts()).Extract(context.Background(), llmInput()); !errors.Is(err, ErrPause) {
		t.Fatalf("a file that is not executable: want ErrPause, got %v", err)
	}
}

func TestHugeAnswerIsBad(t *testing.T) {
	llmStub(t, "codex", `head -c 5000000 /dev/zero | tr '\0' 'x'`)
	_, _, err := Codex(llmOpts()).Extract(context.Background(), llmInput())
	if !errors.Is(err, ErrBadAnswer) {
		t.Fatalf("want ErrBadAnswer, got %v", err)
	}
}

func TestBuildPrompt(t *testing.T) {
	in := llmInput()
	p := BuildPrompt(in)
	for _, want := range []string{
		`{"learnings": [`, "title", "body", "kind", "confidence", "tags", "entities", "files", "global", "duplicate_of", "supersedes",
		"fix | rule | decision | failure | recipe | preference | correction", "high", "secrets", "summary",
		"project: github.com/acme/auth-service", "branch: fix/oauth", "harness: claude-code",
		"user/prompt", "the OAuth redirect fails with state mismatch",
		"tool/failure · Bash · exit 1", "input: go test ./internal/auth", "--- FAIL: TestRedirect",
		"assistant/conclusion", "Fixed: decode the state param first",
		answerID1 + " [rule] Run go test with -race", "Always run the tests with -race.",
		"set duplicate_of to its id", "list its id in supersedes",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("the prompt lacks %q", want)
		}
	}
	if len(p) > maxPromptBytes {
		t.Errorf("prompt of %d bytes", len(p))
	}
	if t.Failed() {
		t.Log(p)
	}
}

func TestBuildPromptIsBounded(t *testing.T) {
	in := llmInput()
	var notes []queue.Note
	for i := range 400 {
		notes = append(notes, queue.Note{Kind: queue.NotePrompt, Text: fmt.Sprintf("prompt number %d: %s", i, strings.Repeat("words ", 300))})
	}
	in.Entry.Digest.Notes = notes
	for i := range 200 {
		in.Existing = append(in.Existing, Existing{ID: answerID2, Title: fmt.Sprintf("existing %d", i), Kind: "fix", Body: strings.Repeat("long body ", 200)})
	}
	p := BuildPrompt(in)
	if len(p) > maxPromptBytes {
		t.Fatalf("prompt of %d bytes, the bound is %d", len(p), maxPromptBytes)
	}
	for _, want := range []string{"prompt number 0:", "prompt number 1:", "prompt number 399:", "notes from the middle of the session left out", "more not shown", "Reply now with the JSON object"} {
		if !strings.Contains(p, want) {
			t.Errorf("the prompt lacks %q", want)
		}
	}
	if strings.Contains(p, "prompt number 200:") {
		t.Errorf("the middle of the digest should be cut")
	}
}

func TestBuildPromptEmpty(t *testing.T) {
	p := BuildPrompt(Input{Entry: &queue.Entry{ID: "q-1"}})
	if !strings.Contains(p, "(the digest has no notes)") || !strings.Contains(p, "Existing learnings") || !strings.Contains(p, "(none)") {
		t.Fatal(p)
	}
	if BuildPrompt(Input{}) == "" {
		t.Fatal("no prompt for an empty input")
	}
}

func TestNoEntryIsAnError(t *testing.T) {
	if _, _, err := Claude(llmOpts()).Extract(context.Background(), Input{}); err == nil {
		t.Fatal("want an error for an input without an entry")
	}
}

// A command extractor asked for the handoff's summary gets it on stdin and answers it beside
// the learnings; one not asked gets no handoff key.
func TestCommandHandoffSummary(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "extract")
	writeFile(t, path, []byte(`#!/bin/sh
cat > "$(dirname "$0")/stdin.json"
echo '{"learnings":[],"handoff":{"task":"Fix the OAuth state mismatch","concluded":"Decoding the state first fixed it"}}'
`))
	if err := os.Chmod(path, 0o755); err != nil {
		t.Fatal(err)
	}
	in := llmInput()
	r, _, err := Command(path, llmOpts()).(replier).Reply(context.Background(), in)
	if err != nil || r.Handoff == nil || r.Handoff.Task != "Fix the OAuth state mismatch" {
		t.Fatalf("%+v %v", r, err)
	}
	if raw := readFile(t, filepath.Join(dir, "stdin.json")); strings.Contains(raw, `"handoff"`) {
		t.Fatalf("not asked, but stdin has a handoff: %s", raw)
	}
	in.Handoff = &handoff.Summary{Task: "the OAuth redirect fails with state mismatch"}
	if _, _, err := Command(path, llmOpts()).Extract(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	if raw := readFile(t, filepath.Join(dir, "stdin.json")); !strings.Contains(raw, `"handoff":{"task":"the OAuth redirect fails with state mismatch"}`) {
		t.Fatalf("stdin %s", raw)
	}
}
