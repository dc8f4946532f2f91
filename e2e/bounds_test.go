package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// prose returns about n bytes of words, some of which the learnings of the test repository
// hold, so that a prompt made of them costs recall what a pasted document would.
func prose(n int) string {
	rng := rand.New(rand.NewPCG(5, 6))
	vocab := []string{"migrate", "database", "postgres", "deploy", "build", "cache", "docker", "pipeline",
		"retry", "config", "logs", "schema", "index", "token", "branch", "release", "worker", "queue"}
	for i := 0; i < 400; i++ {
		vocab = append(vocab, fmt.Sprintf("w%x", rng.Uint32()))
	}
	var b strings.Builder
	b.Grow(n + 16)
	for b.Len() < n {
		b.WriteString(vocab[rng.IntN(len(vocab))])
		b.WriteByte(' ')
	}
	return b.String()
}

// hookThroughPipe runs a hook with stdin fed through a pipe by a writer that reports
// whether the hook let it write everything (no EPIPE).
func hookThroughPipe(t *testing.T, environ []string, home string, payload []byte, keepOpen bool) (stdout string, d time.Duration, writeErr error) {
	t.Helper()
	cmd := exec.Command(reflectBin(t), "--home", home, "hook", "claude")
	cmd.Env = environ
	w, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd.Stdout = &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// a hook that hangs is killed, so that the test fails instead of the whole run
	hung := time.AfterFunc(10*time.Second, func() { cmd.Process.Kill() })
	defer hung.Stop()
	wrote := make(chan error, 1)
	go func() {
		_, err := w.Write(payload)
		if !keepOpen {
			w.Close()
		}
		wrote <- err
	}()
	err = cmd.Wait()
	d = time.Since(start)
	if keepOpen {
		w.Close()
	}
	if err != nil {
		t.Fatalf("hook exited with %v", err)
	}
	return out.String(), d, <-wrote
}

// TestHookStdinIsBounded: a payload over the 4 MB bound, valid JSON or garbage, is read to
// its end (the host gets no EPIPE), thrown away with a line in the log, and the hook exits 0
// with no output well inside its deadline; a payload under the bound whose prompt is huge
// still ends inside deadline plus grace, reading and decoding included; a host that never
// closes stdin does not hold the hook past its longest deadline.
func TestHookStdinIsBounded(t *testing.T) {
	environ := env(t)
	home := initRepo(t, environ)
	bin := reflectBin(t)
	for _, w := range []string{"migrate", "database", "deploy", "cache", "docker", "pipeline"} {
		run(t, environ, ".", bin, "--home", home, "add", "--global", "--title", "Check the "+w+" logs before a retry",
			"--body", "When the "+w+" step fails, read its config and logs before retrying the pipeline.")
	}
	run(t, environ, ".", bin, "--home", home, "reindex")
	commits := commitCount(t, environ, home)
	cwd := t.TempDir()
	prompt := func(n int) []byte {
		b, _ := json.Marshal(map[string]any{"hook_event_name": "UserPromptSubmit", "session_id": "s-big", "cwd": cwd, "prompt": prose(n)})
		return b
	}
	toolOutput := func(n int) []byte {
		b, _ := json.Marshal(map[string]any{"hook_event_name": "PostToolUse", "session_id": "s-big", "cwd": cwd, "tool_name": "Bash",
			"tool_input": map[string]any{"command": "cat big.log"}, "tool_response": map[string]any{"stdout": prose(n), "exit_code": 1}})
		return b
	}
	garbage := func(n int) []byte {
		b := make([]byte, n)
		rng := rand.New(rand.NewPCG(7, 8))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		return b
	}
	const grace, startup = 150 * time.Millisecond, 250 * time.Millisecond
	recallDeadline, captureDeadline := time.Second, 500*time.Millisecond
	for _, tt := range []struct {
		name     string
		payload  []byte
		deadline time.Duration
		over     bool // over the bound: thrown away unread
	}{
		{"5 MB prompt", prompt(5 << 20), recallDeadline, true},
		{"30 MB prompt", prompt(30 << 20), recallDeadline, true},
		{"5 MB of garbage", garbage(5 << 20), recallDeadline, true},
		{"30 MB of garbage", garbage(30 << 20), recallDeadline, true},
		{"30 MB tool output", toolOutput(30 << 20), captureDeadline, true},
		{"3.9 MB prompt, under the bound", prompt(39 << 20 / 10), recallDeadline, false},
		{"3.9 MB tool output, under the bound", toolOutput(39 << 20 / 10), captureDeadline, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			logPath := filepath.Join(home, ".git", "reflect", "log", "reflect.log")
			before, _ := os.ReadFile(logPath)
			out, d, werr := hookThroughPipe(t, environ, home, tt.payload, false)
			t.Logf("%d bytes: %v", len(tt.payload), d)
			if werr != nil {
				t.Errorf("the host could not write the whole payload: %v", werr)
			}
			if msg := checkHookOutput([]byte(out)); msg != "" {
				t.Errorf("%s: %q", msg, out)
			}
			limit := tt.deadline + grace + startup
			if tt.over {
				limit = startup // nothing is decoded: reading 30 MB through a pipe is all it does
				if out != "" {
					t.Errorf("a payload over the bound produced output %q", out)
				}
				after, _ := os.ReadFile(logPath)
				if !strings.Contains(string(after[len(before):]), "payload over the stdin bound") {
					t.Errorf("the log does not say why nothing was done:\n%s", after[len(before):])
				}
			}
			if d > limit {
				t.Errorf("the hook took %v; its bound is %v", d, limit)
			}
		})
	}
	t.Run("stdin never closed", func(t *testing.T) {
		out, d, _ := hookThroughPipe(t, environ, home, []byte(`{"hook_event_name":"UserPromptSubmit","prompt":"deploy the database`), true)
		if out != "" {
			t.Errorf("stdout %q", out)
		}
		if limit := recallDeadline + startup; d > limit {
			t.Errorf("a hook whose stdin stayed open took %v; its bound is %v", d, limit)
		}
	})
	waitBackground(home)
	if got := commitCount(t, environ, home); got != commits {
		t.Errorf("oversized payloads made commits: %s, had %s", got, commits)
	}
	assertHealthy(t, environ, home)
}

// TestHookCapturesOnlyTranscripts: a capture hook whose payload names a file that is not a
// transcript (a system file, a binary, a sparse file) exits 0 with no output, makes no
// commit and logs why.
func TestHookCapturesOnlyTranscripts(t *testing.T) {
	environ := env(t)
	home := initRepo(t, environ)
	dir := t.TempDir()
	binary := filepath.Join(dir, "core.bin")
	b := make([]byte, 256<<10)
	for i := range b {
		b[i] = byte(i * 31)
	}
	os.WriteFile(binary, b, 0o644)
	sparse := filepath.Join(dir, "sparse.jsonl")
	if f, err := os.Create(sparse); err == nil {
		f.Truncate(64 << 20)
		f.Close()
	}
	logPath := filepath.Join(home, ".git", "reflect", "log", "reflect.log")
	for i, path := range []string{"/etc/passwd", binary, sparse} {
		commits := commitCount(t, environ, home)
		before, _ := os.ReadFile(logPath)
		for _, ev := range []string{"PreCompact", "SessionEnd", "Stop"} {
			out, _ := runHook(t, environ, home, []string{"claude", "codex"}[i%2], map[string]any{"hook_event_name": ev,
				"session_id": fmt.Sprintf("s-%d", i), "transcript_path": path, "cwd": dir, "last_assistant_message": "Done."})
			if out != "" {
				t.Fatalf("%s on %s printed %q", ev, path, out)
			}
		}
		if got := commitCount(t, environ, home); got != commits {
			t.Fatalf("%s made a capture commit (%s commits, had %s)", path, got, commits)
		}
		after, _ := os.ReadFile(logPath)
		if logged := string(after[len(before):]); !strings.Contains(logged, "not a transcript") || !strings.Contains(logged, path) {
			t.Fatalf("the log does not say why %s was not captured:\n%s", path, logged)
		}
	}
	waitBackground(home)
	assertHealthy(t, environ, home)
}

// claudeRecord is one user or assistant line of a Claude Code transcript.
func claudeRecord(session, uuid, role, text string) string {
	content, _ := json.Marshal(text)
	return fmt.Sprintf(`{"type":%q,"sessionId":%q,"cwd":"/w/bounds","uuid":%q,"timestamp":"2026-11-20T09:00:00Z","message":{"role":%q,"content":%s}}`+"\n",
		role, session, uuid, role, content)
}

// TestHistoryImportSkipsHugeLines: `reflect history import` (what the Stop hook starts) of a
// transcript with a line of hundreds of MB between valid lines skips that line with a
// warning (stderr, the repository's log, the report), imports every other message, and
// stays under 200 MB of RSS. The long line is a hole of a sparse file: nothing big is
// written. REFLECT_TEST_HUGE=1 makes it 2 GB.
func TestHistoryImportSkipsHugeLines(t *testing.T) {
	size := int64(320 << 20)
	if os.Getenv("REFLECT_TEST_HUGE") == "1" {
		size = 2 << 30
	}
	environ := env(t)
	home := initRepo(t, environ)
	session := "7d3c9a10-2b4e-4f61-9c0a-5e8f1d2b3a47"
	path := filepath.Join(t.TempDir(), session+".jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(claudeRecord(session, "u1", "user", "why does the zanzibar migration stall"))
	f.WriteString(claudeRecord(session, "u2", "assistant", "The zanzibar migration waits on a lock held by the backfill."))
	off, _ := f.Seek(0, io.SeekCurrent)
	// a line of size bytes: a hole, then its newline
	if _, err := f.WriteAt([]byte("\n"), off+size-1); err != nil {
		t.Fatal(err)
	}
	f.Seek(off+size, io.SeekStart)
	f.WriteString(claudeRecord(session, "u3", "user", "and the quokka deploy after it"))
	f.WriteString(claudeRecord(session, "u4", "assistant", "The quokka deploy went through once the lock was released."))
	f.Close()

	cmd := exec.Command(reflectBin(t), "--home", home, "--format", "json", "history", "import", "--transcript", path)
	cmd.Env = environ
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	rss, err := measured(t, cmd)
	if err != nil {
		t.Fatalf("history import: %v\n%s", err, stderr.String())
	}
	elapsed := time.Since(start)
	t.Logf("imported a transcript with a %d MB line in %v, peak RSS %d MB", size>>20, elapsed, rss>>20)
	switch {
	case rss == 0:
		t.Log("peak RSS is not reported on this system: not checked")
	case rss > 200<<20:
		t.Errorf("peak RSS %d MB; the bound is 200 MB", rss>>20)
	}
	var rep struct {
		Messages     int            `json:"messages"`
		SkippedLines map[string]int `json:"skipped_lines"`
		Torn         []string       `json:"torn"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, stdout.String())
	}
	if rep.Messages != 4 || rep.SkippedLines["line over 16 MB"] != 1 || len(rep.Torn) != 0 {
		t.Errorf("report: %d messages, skipped lines %v, torn %v; want 4 messages and one line over 16 MB", rep.Messages, rep.SkippedLines, rep.Torn)
	}
	if !strings.Contains(stderr.String(), "over the bound") {
		t.Errorf("no warning on stderr:\n%s", stderr.String())
	}
	if logb, _ := os.ReadFile(filepath.Join(home, ".git", "reflect", "log", "reflect.log")); !strings.Contains(string(logb), "over the bound") || !strings.Contains(string(logb), path) {
		t.Errorf("no warning in the repository's log:\n%s", logb)
	}
	for _, needle := range []string{"zanzibar", "quokka"} {
		out := run(t, environ, home, reflectBin(t), "--home", home, "history", "search", "--global", needle)
		if !strings.Contains(out, needle) || !strings.Contains(out, session[:8]) {
			t.Errorf("history search %s does not find the session:\n%s", needle, out)
		}
	}
	assertHealthy(t, environ, home)
}
