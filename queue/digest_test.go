package queue

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/reflect-memory/reflect/transcript"
)

// cc writes Claude Code transcript lines in the shapes Claude Code 2.1 writes (the envelope
// of every conversation record; one line per content block, the blocks of one assistant
// turn sharing message.id; tool results as user lines with toolUseResult), one second apart.
type cc struct {
	session, agent string
	t0             time.Time
	n              int
	lines          []string
}

func newCC(session string, t0 time.Time) *cc { return &cc{session: session, t0: t0} }

func (c *cc) env(typ, body string, extra ...string) {
	c.n++
	side := "false"
	agent := ""
	if c.agent != "" {
		side, agent = "true", `"agentId":"`+c.agent+`",`
	}
	parent := "null"
	if c.n > 1 {
		parent = fmt.Sprintf(`"%s-%04d"`, c.agent+"u", c.n-1)
	}
	line := fmt.Sprintf(`{"parentUuid":%s,"isSidechain":%s,"userType":"external","cwd":"/home/dev/src/shop","sessionId":%q,"version":"2.1.7","gitBranch":"main",%s"type":%q,%s,"uuid":"%s-%04d","timestamp":%q`,
		parent, side, c.session, agent, typ, body, c.agent+"u", c.n, c.t0.Add(time.Duration(c.n)*time.Second).UTC().Format("2006-01-02T15:04:05.000Z"))
	for _, e := range extra {
		line += "," + e
	}
	c.lines = append(c.lines, line+"}")
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func (c *cc) prompt(text string, extra ...string) {
	c.env("user", `"message":{"role":"user","content":`+jsonString(text)+`}`, extra...)
}

// block writes one content block of the assistant message msg.
func (c *cc) block(msg, block string) {
	c.env("assistant", `"message":{"model":"claude-sonnet-4-5-20250929","id":"msg_`+msg+`","type":"message","role":"assistant","content":[`+block+`],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":9}},"requestId":"req_`+msg+`"`)
}

func (c *cc) say(msg, text string) { c.block(msg, `{"type":"text","text":`+jsonString(text)+`}`) }

func (c *cc) use(msg, id, tool, input string) {
	c.block(msg, `{"type":"tool_use","id":"toolu_`+id+`","name":"`+tool+`","input":`+input+`}`)
}

func (c *cc) bash(msg, id, command string) {
	c.use(msg, id, "Bash", `{"command":`+jsonString(command)+`,"description":"run it"}`)
}

// result writes a tool result; a failed one as Claude Code writes it: is_error, and
// toolUseResult an "Error: …" string.
func (c *cc) result(id, content string, failed bool) {
	if failed {
		c.env("user", `"message":{"role":"user","content":[{"type":"tool_result","content":`+jsonString(content)+`,"is_error":true,"tool_use_id":"toolu_`+id+`"}]}`,
			`"toolUseResult":`+jsonString("Error: "+content))
		return
	}
	c.env("user", `"message":{"role":"user","content":[{"tool_use_id":"toolu_`+id+`","type":"tool_result","content":`+jsonString(content)+`,"is_error":false}]}`,
		`"toolUseResult":{"stdout":`+jsonString(content)+`,"stderr":"","interrupted":false,"isImage":false}`)
}

func (c *cc) raw(line string) { c.n++; c.lines = append(c.lines, line) }

func (c *cc) text() string { return strings.Join(c.lines, "\n") + "\n" }

func (c *cc) messages(t *testing.T) []transcript.Message {
	t.Helper()
	s, err := transcript.Read(strings.NewReader(c.text()), transcript.HarnessClaude)
	if err != nil || s.Skipped != 0 {
		t.Fatalf("read: %v, skipped %v", err, s.SkipReasons)
	}
	return s.Messages
}

// kinds lists the notes as kind, or kind(tool) when they name a tool, with @agent for a
// subagent's notes.
func kinds(d Digest) string {
	var out []string
	for _, n := range d.Notes {
		k := n.Kind
		if n.Tool != "" {
			k += "(" + n.Tool + ")"
		}
		if n.Agent != "" {
			k += "@" + n.Agent
		}
		out = append(out, k)
	}
	return strings.Join(out, " ")
}

var t0 = time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)

// After a failure the agent says what it will do, then does it, each block a line of its
// own: the followup holds the words and the command, and whether the command worked. A
// command missing from the machine (exit 127) is the failure.
func TestDigestFollowupHoldsTheFix(t *testing.T) {
	c := newCC("s-fix", t0)
	c.prompt("where is the config loaded?")
	c.say("1", "Let me search for it.")
	c.bash("1", "01", "rg -n loadConfig src")
	c.result("01", "Exit code 127\n/bin/bash: line 1: rg: command not found", true)
	c.say("2", "rg isn't installed here; I'll use grep instead.")
	c.bash("2", "02", "grep -rn loadConfig src")
	c.result("02", "src/config.ts:12:export function loadConfig() {", false)
	c.say("3", "It is loaded in src/config.ts, line 12.")
	d := BuildDigest(c.messages(t), 48<<10)
	if got, want := kinds(d), "prompt failure(Bash) followup(Bash) conclusion"; got != want {
		t.Fatalf("notes = %s, want %s", got, want)
	}
	f, fu := d.Notes[1], d.Notes[2]
	if f.Input != "rg -n loadConfig src" || f.ExitCode == nil || *f.ExitCode != 127 || !strings.Contains(f.Text, "rg: command not found") {
		t.Errorf("failure = %+v", f)
	}
	if fu.Text != "rg isn't installed here; I'll use grep instead." || fu.Input != "grep -rn loadConfig src" || fu.Outcome != OutcomeOK {
		t.Errorf("followup = %+v", fu)
	}
}

// The calls after a failure are noted up to maxFollowCalls, a Read or an Edit before the
// retry included; a retry that fails again is a followup that failed, then a failure of
// its own, whose followups start afresh.
func TestDigestFollowupCalls(t *testing.T) {
	c := newCC("s-calls", t0)
	c.prompt("make the cart tests pass")
	c.bash("1", "01", "npm test -- cart")
	c.result("01", "Exit code 1\nFAIL test/cart.test.ts\n  ✕ totals (4 ms)", true)
	c.use("2", "02", "Read", `{"file_path":"/home/dev/src/shop/src/cart.ts"}`)
	c.result("02", "     1→export function total() {}", false)
	c.bash("3", "03", "npm test -- cart")
	c.result("03", "Exit code 1\nFAIL test/cart.test.ts", true)
	c.use("4", "04", "Edit", `{"file_path":"/home/dev/src/shop/src/cart.ts","old_string":"a","new_string":"b"}`)
	c.result("04", "The file has been updated.", false)
	c.bash("4", "05", "npm test -- cart")
	c.result("05", "PASS test/cart.test.ts", false)
	c.bash("4", "06", "git status --short")
	c.result("06", " M src/cart.ts", false)
	c.bash("4", "07", "git diff --stat")
	c.result("07", " src/cart.ts | 2 +-", false)
	c.say("5", "The cart tests pass.")
	d := BuildDigest(c.messages(t), 48<<10)
	want := "prompt failure(Bash) followup(Read) followup(Bash) failure(Bash) followup(Edit) followup(Bash) followup(Bash) conclusion"
	if got := kinds(d); got != want {
		t.Fatalf("notes = %s\nwant    %s", got, want)
	}
	for i, out := range map[int]string{2: OutcomeOK, 3: OutcomeFailed, 5: OutcomeOK, 6: OutcomeOK, 7: OutcomeOK} {
		if d.Notes[i].Outcome != out {
			t.Errorf("note %d %+v: outcome %q, want %q", i, d.Notes[i], d.Notes[i].Outcome, out)
		}
	}
	if d.Notes[3].ExitCode == nil || *d.Notes[3].ExitCode != 1 || d.Failures != 2 {
		t.Errorf("the retry's exit code: %+v; failures %d", d.Notes[3], d.Failures)
	}
}

// Failures of Claude Code's own tools that teach something (a file over Read's limit, a
// directory read as a file, a path that does not exist) are failure notes with the tool and
// its input, and what worked after them is their followup. The texts are Claude Code's.
func TestDigestToolFailures(t *testing.T) {
	c := newCC("s-read", t0)
	c.prompt("why does checkout log twice?")
	c.use("1", "01", "Read", `{"file_path":"/home/dev/src/shop/logs/app.log"}`)
	c.result("01", "File content (33320 tokens) exceeds maximum allowed tokens (25000). Please use offset and limit parameters to read specific portions of the file, or use the GrepTool to search for specific content.", true)
	c.use("2", "02", "Read", `{"file_path":"/home/dev/src/shop/logs/app.log","offset":1,"limit":400}`)
	c.result("02", "     1→checkout start", false)
	c.use("3", "03", "Read", `{"file_path":"/home/dev/src/shop/src/hooks"}`)
	c.result("03", "EISDIR: illegal operation on a directory, read", true)
	c.bash("4", "04", "ls src/hooks")
	c.result("04", "useCheckout.ts\nuseLogger.ts", false)
	c.use("5", "05", "Read", `{"file_path":"/home/dev/src/shop/src/hooks/useLoger.ts"}`)
	c.result("05", "<tool_use_error>File does not exist. Did you mean useLogger.ts?</tool_use_error>", true)
	c.say("6", "useLogger registers its handler on every render.")
	d := BuildDigest(c.messages(t), 48<<10)
	// each failure's followups hold the next calls, the one that failed in turn included
	want := "prompt failure(Read) followup(Read) followup(Read) failure(Read) followup(Bash) followup(Read) failure(Read) followup conclusion"
	if got := kinds(d); got != want {
		t.Fatalf("notes = %s\nwant    %s", got, want)
	}
	if n := d.Notes[1]; n.Input != `{"file_path":"/home/dev/src/shop/logs/app.log"}` || !strings.HasPrefix(n.Text, "File content (33320 tokens) exceeds") {
		t.Errorf("too large: %+v", n)
	}
	if n := d.Notes[2]; !strings.Contains(n.Input, `"limit":400`) || n.Outcome != OutcomeOK {
		t.Errorf("read with a limit: %+v", n)
	}
	if n := d.Notes[3]; n.Outcome != OutcomeFailed || !strings.Contains(n.Input, "src/hooks") {
		t.Errorf("the next read, which failed: %+v", n)
	}
	if n := d.Notes[4]; n.Text != "EISDIR: illegal operation on a directory, read" || d.Notes[5].Input != "ls src/hooks" || d.Notes[5].Outcome != OutcomeOK {
		t.Errorf("EISDIR: %+v then %+v", n, d.Notes[5])
	}
	if n := d.Notes[7]; n.Text != "File does not exist. Did you mean useLogger.ts?" {
		t.Errorf("the <tool_use_error> wrapper stays: %q", n.Text)
	}
	if d.Failures != 3 {
		t.Errorf("failures = %d", d.Failures)
	}
}

// A Stop hook that refuses to end the turn is its own note with the hook's command and
// words, recorded twice by Claude Code (the isMeta user text and the hook_blocking_error
// attachment) and noted once; the words before it were the agent's conclusion. What hooks
// add to the context (reflect's own recall among them) is not a note.
func TestDigestHookFeedback(t *testing.T) {
	c := newCC("s-hook", t0)
	c.prompt("fix the flaky checkout test")
	c.say("1", "Fixed: the test awaited the wrong promise.")
	c.prompt("Stop hook feedback:\n[~/.claude/stop-hook-git-check.sh]: There are untracked files in the repository. Please commit and push these changes to the remote branch.\n", `"isMeta":true`)
	c.raw(`{"parentUuid":"u-0003","isSidechain":false,"attachment":{"type":"hook_blocking_error","hookName":"Stop","toolUseID":"hook-5d1c","hookEvent":"Stop","blockingError":{"blockingError":"There are untracked files in the repository. Please commit and push these changes to the remote branch.","command":"~/.claude/stop-hook-git-check.sh"}},"type":"attachment","uuid":"u-0004","timestamp":"2026-11-21T09:00:04.000Z","sessionId":"s-hook","version":"2.1.118"}`)
	c.raw(`{"type":"attachment","uuid":"u-0005","timestamp":"2026-11-21T09:00:05.000Z","sessionId":"s-hook","attachment":{"type":"hook_additional_context","content":["reflect: use pnpm in this repo"],"hookName":"UserPromptSubmit","hookEvent":"UserPromptSubmit","toolUseID":"x"}}`)
	c.bash("2", "01", "git add test/checkout.test.ts && git commit -m 'test: await the right promise'")
	c.result("01", "[main 1a2b3c4] test: await the right promise", false)
	c.raw(`{"type":"attachment","attachment":{"type":"hook_blocking_error","hookName":"PostToolUse:Bash","toolUseID":"toolu_01","hookEvent":"PostToolUse","blockingError":{"blockingError":"[./scripts/commit-msg-check.sh]: commit subjects must start with a package name\n","command":"./scripts/commit-msg-check.sh"}},"timestamp":"2026-11-21T09:00:08.000Z","uuid":"u-0008","sessionId":"s-hook"}`)
	c.say("3", "Committed the test fix.")
	d := BuildDigest(c.messages(t), 48<<10)
	want := "prompt conclusion hook(Stop) hook(PostToolUse:Bash) conclusion"
	if got := kinds(d); got != want {
		t.Fatalf("notes = %s\nwant    %s", got, want)
	}
	stop := d.Notes[2]
	if stop.Input != "~/.claude/stop-hook-git-check.sh" || stop.Text != "[~/.claude/stop-hook-git-check.sh]: There are untracked files in the repository. Please commit and push these changes to the remote branch." {
		t.Errorf("stop hook note = %+v", stop)
	}
	if n := d.Notes[3]; n.Input != "./scripts/commit-msg-check.sh" || !strings.Contains(n.Text, "must start with a package name") {
		t.Errorf("PostToolUse hook note = %+v", n)
	}
	if d.Prompts != 1 || d.Notes[1].Text != "Fixed: the test awaited the wrong promise." {
		t.Errorf("prompts %d, conclusion %+v", d.Prompts, d.Notes[1])
	}
}

// cx writes Codex rollout lines in the envelope shapes of 0.12x.
type cx struct {
	t0    time.Time
	n     int
	lines []string
}

func (c *cx) add(typ, payload string) {
	c.n++
	c.lines = append(c.lines, `{"timestamp":"`+c.t0.Add(time.Duration(c.n)*time.Second).UTC().Format("2006-01-02T15:04:05.000Z")+`","type":"`+typ+`","payload":`+payload+`}`)
}

func (c *cx) prompt(text string) {
	c.add("response_item", `{"type":"message","role":"user","content":[{"type":"input_text","text":`+jsonString(text)+`}]}`)
}

func (c *cx) say(text string) {
	c.add("response_item", `{"type":"message","role":"assistant","content":[{"type":"output_text","text":`+jsonString(text)+`}],"phase":"commentary"}`)
}

func (c *cx) exec(call, cmd string) {
	args := `{"cmd":` + jsonString(cmd) + `,"workdir":"/home/dev/src/web","yield_time_ms":10000,"max_output_tokens":12000}`
	c.add("response_item", `{"type":"function_call","name":"exec_command","arguments":`+jsonString(args)+`,"call_id":"`+call+`"}`)
}

func (c *cx) poll(call, proc string) {
	args := `{"session_id":` + proc + `,"chars":"","yield_time_ms":30000,"max_output_tokens":12000}`
	c.add("response_item", `{"type":"function_call","name":"write_stdin","arguments":`+jsonString(args)+`,"call_id":"`+call+`"}`)
}

// output writes a unified exec answer: header (running or exited) and output.
func (c *cx) output(call, header, out string) {
	text := "Chunk ID: 4f1a2b\nWall time: 10.0023 seconds\n" + header + "\nOriginal token count: 40\nOutput:\n" + out
	c.add("response_item", `{"type":"function_call_output","call_id":"`+call+`","output":`+jsonString(text)+`}`)
}

func (c *cx) text() string { return strings.Join(c.lines, "\n") + "\n" }

// A Codex build polled with write_stdin until it failed, then again until it passed: one
// failure with the build's command line, its output and exit code, and a followup with the
// same command that worked. No note holds a poll.
func TestDigestCodexPolledCommand(t *testing.T) {
	c := &cx{t0: t0}
	c.add("session_meta", `{"id":"019e2a40-1c7d-7b10-9f3e-5a6b7c8d9e0f","timestamp":"2026-11-21T09:00:00.000Z","cwd":"/home/dev/src/web","originator":"codex-tui","cli_version":"0.128.0","source":"cli"}`)
	c.prompt("the build is red, fix it")
	c.exec("call_b1", "npm run build")
	c.output("call_b1", "Process running with session ID 7311", "> web@1.0.0 build\n> tsc -p .\n")
	c.poll("call_p1", "7311")
	c.output("call_p1", "Process exited with code 2", "src/app.ts(3,1): error TS2304: Cannot find name 'loadConfig'.\n")
	c.say("loadConfig is not imported in src/app.ts; adding the import and building again.")
	c.add("response_item", `{"type":"custom_tool_call","status":"completed","call_id":"call_ap","name":"apply_patch","input":"*** Begin Patch\n*** Update File: src/app.ts\n@@\n+import { loadConfig } from './config';\n*** End Patch\n"}`)
	c.add("response_item", `{"type":"custom_tool_call_output","call_id":"call_ap","output":"{\"output\":\"Success. Updated the following files:\\nM src/app.ts\\n\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":0.1}}"}`)
	c.exec("call_b2", "npm run build")
	c.output("call_b2", "Process running with session ID 7312", "")
	c.poll("call_p2", "7312")
	c.output("call_p2", "Process running with session ID 7312", "compiling\n")
	c.poll("call_p3", "7312")
	c.output("call_p3", "Process exited with code 0", "built in 41s\n")
	c.say("The build passes: src/app.ts was missing the loadConfig import.")
	s, err := transcript.Read(strings.NewReader(c.text()), transcript.HarnessCodex)
	if err != nil || s.Skipped != 0 {
		t.Fatalf("read: %v %v", err, s.SkipReasons)
	}
	d := BuildDigest(s.Messages, 48<<10)
	want := "prompt failure(exec_command) followup(apply_patch) followup(exec_command) conclusion"
	if got := kinds(d); got != want {
		t.Fatalf("notes = %s\nwant    %s", got, want)
	}
	f := d.Notes[1]
	if f.Input != "npm run build" || f.ExitCode == nil || *f.ExitCode != 2 || !strings.Contains(f.Text, "TS2304") || strings.Contains(f.Text, "Process running") {
		t.Errorf("failure = %+v", f)
	}
	if fu := d.Notes[3]; fu.Input != "npm run build" || fu.Outcome != OutcomeOK || fu.ExitCode == nil || *fu.ExitCode != 0 {
		t.Errorf("the build that worked: %+v", fu)
	}
	if d.Failures != 1 {
		t.Errorf("failures = %d, want 1", d.Failures)
	}
	for _, n := range d.Notes {
		if strings.Contains(n.Input, "session_id") || n.Tool == "write_stdin" {
			t.Errorf("a poll reached the digest: %+v", n)
		}
	}
}

// writeSession lays out a Claude Code session as Claude Code 2.1 does: the session file in
// the project folder, each subagent's file under <session>/subagents/.
func writeSession(t testing.TB, dir string, main *cc, subs ...*cc) string {
	t.Helper()
	path := filepath.Join(dir, main.session+".jsonl")
	if err := os.WriteFile(path, []byte(main.text()), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, s := range subs {
		p := filepath.Join(dir, main.session, "subagents", "agent-"+s.agent+".jsonl")
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s.text()), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// A subagent's transcript is read into the digest as its part of the turn it ran in: its
// task, its failure and what fixed it, its report, each marked with its agent id; its task
// is not a prompt of the user's. A 2.0-style Warmup agent file beside the session is not.
func TestEnqueueSubagents(t *testing.T) {
	r := newRepo(t)
	dir := t.TempDir()
	const session = "5b0c2f7e-3d1a-4c8e-9f2b-7a6d1e0c4b93"
	main := newCC(session, t0)
	main.prompt("the checkout tests fail on CI, find out why")
	main.say("1", "I'll have an agent look for how CI runs them.")
	main.use("1", "t1", "Task", `{"description":"Find CI test setup","prompt":"Find how CI runs the checkout tests. Report the command.","subagent_type":"Explore"}`)
	sub := &cc{session: session, agent: "a3f9c21", t0: t0.Add(2 * time.Second)}
	sub.prompt("Find how CI runs the checkout tests. Report the command.")
	sub.bash("s1", "s01", "cat .github/workflows/ci.yaml")
	sub.result("s01", "Exit code 1\ncat: .github/workflows/ci.yaml: No such file or directory", true)
	sub.bash("s2", "s02", "ls .github/workflows")
	sub.result("s02", "test.yml", false)
	sub.say("s3", "CI runs `pnpm --filter @webshop/cart test` (.github/workflows/test.yml).")
	main.n = 30 // the main file goes on after the subagent's messages
	main.result("t1", "CI runs `pnpm --filter @webshop/cart test` (.github/workflows/test.yml).", false)
	main.say("2", "CI uses pnpm; locally you ran npm.")
	path := writeSession(t, dir, main, sub)
	warm := &cc{session: session, agent: "50243ee8", t0: t0}
	warm.prompt("Warmup")
	warm.say("w1", "I'm ready to help you search the codebase.")
	if err := os.WriteFile(filepath.Join(dir, "agent-50243ee8.jsonl"), []byte(warm.text()), 0o600); err != nil {
		t.Fatal(err)
	}

	capture := func(at time.Duration) *Entry {
		t.Helper()
		res, err := Enqueue(context.Background(), r, Capture{Harness: "claude-code", Session: session, TranscriptPath: path,
			Trigger: TriggerPreCompact, Project: "_global", Now: t0.Add(at), DigestBytes: 48 << 10})
		if err != nil || !res.Committed {
			t.Fatalf("%+v, %v", res, err)
		}
		return res.Entry
	}
	first := capture(35 * time.Second) // the session file's last message is at 32 s
	d := first.Digest
	want := "prompt subagent@a3f9c21 failure(Bash)@a3f9c21 followup(Bash)@a3f9c21 conclusion@a3f9c21 conclusion"
	if got := kinds(d); got != want {
		t.Fatalf("notes = %s\nwant    %s", got, want)
	}
	if d.Prompts != 1 || d.Subagents != 1 || d.Failures != 1 {
		t.Errorf("prompts %d, subagents %d, failures %d", d.Prompts, d.Subagents, d.Failures)
	}
	if n := d.Notes[1]; n.Text != "Find how CI runs the checkout tests. Report the command." {
		t.Errorf("task = %+v", n)
	}
	if n := d.Notes[3]; n.Input != "ls .github/workflows" || n.Outcome != OutcomeOK {
		t.Errorf("subagent's followup = %+v", n)
	}
	if !strings.Contains(d.Notes[4].Text, "pnpm --filter @webshop/cart test") {
		t.Errorf("report = %+v", d.Notes[4])
	}

	// The next capture, after the drain took this one, reads only what is new of both: the
	// next turn, and a subagent that ran in the background between the captures (at 38 s,
	// before the next prompt at 41 s).
	if _, err := Drop(context.Background(), r, first.ID); err != nil {
		t.Fatal(err)
	}
	bg := &cc{session: session, agent: "b7e01d4", t0: t0.Add(37 * time.Second)}
	bg.prompt("Watch the CI run and report when it finishes.")
	bg.say("b1", "CI finished: green.")
	main.n = 40
	main.prompt("thanks, switch the README to pnpm")
	main.say("3", "Done.")
	path = writeSession(t, dir, main, sub, bg)
	next := capture(45 * time.Second)
	if got := kinds(next.Digest); got != "subagent@b7e01d4 conclusion@b7e01d4 prompt conclusion" {
		t.Errorf("second capture: %s", got)
	}
	// rewritten while pending, the entry keeps its subagent part
	main.prompt("and the CONTRIBUTING guide")
	main.say("4", "Done too.")
	path = writeSession(t, dir, main, sub, bg)
	again := capture(55 * time.Second)
	if again.ID != next.ID || kinds(again.Digest) != "subagent@b7e01d4 conclusion@b7e01d4 prompt conclusion prompt conclusion" {
		t.Errorf("rewritten entry %s: %s", again.ID, kinds(again.Digest))
	}
}

// Older Claude Code wrote a subagent's records into the session file itself (isSidechain,
// an agentId, no file of its own): they make the same part, in the same place.
func TestDigestInlineSidechain(t *testing.T) {
	c := newCC("s-inline", t0)
	c.prompt("list the migrations")
	c.use("1", "t1", "Task", `{"prompt":"List the files in db/migrations.","subagent_type":"Explore"}`)
	c.agent = "9c41d7e2"
	c.prompt("List the files in db/migrations.")
	c.use("s1", "s01", "Glob", `{"pattern":"db/migrations/*.sql"}`)
	c.result("s01", "db/migrations/001_init.sql", false)
	c.say("s2", "One migration: 001_init.sql.")
	c.agent = ""
	c.result("t1", "One migration: 001_init.sql.", false)
	c.say("2", "There is one migration, 001_init.sql.")
	d := BuildDigest(c.messages(t), 48<<10)
	if got, want := kinds(d), "prompt subagent@9c41d7e2 conclusion@9c41d7e2 conclusion"; got != want {
		t.Fatalf("notes = %s, want %s", got, want)
	}
}

// Subagents together take at most a quarter of the budget, each its share, their middle
// dropped first; the digest stays within its budget.
func TestDigestSubagentBudget(t *testing.T) {
	var msgs []transcript.Message
	c := newCC("s-big", t0)
	c.prompt("audit every package")
	c.say("1", "Starting three auditors.")
	msgs = append(msgs, c.messages(t)...)
	for a := 0; a < 3; a++ {
		s := &cc{session: "s-big", agent: fmt.Sprintf("a%d", a), t0: t0.Add(time.Minute)}
		s.prompt(fmt.Sprintf("Audit package %d.", a))
		for i := 0; i < 60; i++ {
			id := fmt.Sprintf("%d", i)
			s.bash(id, id, fmt.Sprintf("go vet ./pkg%d/... # try %d", a, i))
			s.result(id, "Exit code 1\n"+strings.Repeat("vet: something is off here\n", 40), true)
		}
		s.say("end", fmt.Sprintf("Package %d: 60 vet findings.", a))
		for _, m := range s.messages(t) {
			m.Sidechain = true
			msgs = append(msgs, m)
		}
	}
	const budget = 48 << 10
	d := BuildDigest(msgs, budget)
	b, _ := json.Marshal(d)
	if len(b) > budget || !d.Truncated || d.Subagents != 3 {
		t.Fatalf("digest %d bytes (budget %d), truncated %v, subagents %d", len(b), budget, d.Truncated, d.Subagents)
	}
	per := map[string][]Note{}
	for _, n := range d.Notes {
		per[n.Agent] = append(per[n.Agent], n)
	}
	for a := 0; a < 3; a++ {
		ns := per[fmt.Sprintf("a%d", a)]
		part, _ := json.Marshal(ns)
		if len(part) > budget/subagentShare/3 || len(ns) < 2 || ns[0].Kind != NoteSubagent || ns[len(ns)-1].Kind != NoteConclusion {
			t.Errorf("agent a%d: %d notes, %d bytes (share %d); first %q, last %q", a, len(ns), len(part), budget/subagentShare/3, ns[0].Kind, ns[len(ns)-1].Kind)
		}
	}
	// the session's last words came before the auditors started: their parts follow them
	if own := per[""]; len(own) != 2 || own[0].Text != "audit every package" || own[1].Text != "Starting three auditors." || d.Notes[1] != own[1] {
		t.Errorf("the session's own notes: %+v", own)
	}
}

// A capture whose digest would hold nothing (a host marker, successful calls, thinking) is
// not committed and leaves the session's marks alone, so the next capture reads it again.
func TestEnqueueEmptyDigest(t *testing.T) {
	r := newRepo(t)
	c := newCC("s-empty", t0)
	c.prompt("[Request interrupted by user]")
	c.block("1", `{"type":"thinking","thinking":"Let me look at the files.","signature":"EqQBCkYIBxgC"}`)
	c.bash("1", "01", "ls")
	c.result("01", "README.md\nsrc", false)
	path := filepath.Join(t.TempDir(), "s-empty.jsonl")
	if err := os.WriteFile(path, []byte(c.text()), 0o600); err != nil {
		t.Fatal(err)
	}
	capture := Capture{Harness: "claude-code", Session: "s-empty", TranscriptPath: path, Trigger: TriggerPreCompact,
		Project: "_global", Now: time.Now(), DigestBytes: 48 << 10}
	head, _ := r.Head()
	res, err := Enqueue(context.Background(), r, capture)
	if err != nil || res.Committed || !res.EmptyDigest || !strings.Contains(res.Skipped, "holds nothing") {
		t.Fatalf("%+v, %v", res, err)
	}
	if now, _ := r.Head(); now != head {
		t.Fatal("an empty digest was committed")
	}
	if marks, _ := r.ReadState(marksPath("claude-code", "s-empty")); marks != nil {
		t.Fatalf("marks saved: %s", marks)
	}
	c.prompt("now add a README section on the build")
	c.say("2", "Added a Build section to README.md.")
	if err := os.WriteFile(path, []byte(c.text()), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err = Enqueue(context.Background(), r, capture)
	if err != nil || !res.Committed || res.Entry.From != 0 || kinds(res.Entry.Digest) != "prompt conclusion" {
		t.Fatalf("%+v, %v", res, err)
	}
}

// An entry written before the digest had followup outcomes, hook notes and subagents still
// parses, and a new one reads back the same.
func TestDigestFormatCompatible(t *testing.T) {
	old := `{"id":"q-01JDQX5Z0000000000000000AA","harness":"claude-code","session":"s1","trigger":"stop","project":"_global","machine":"m",
	"created":"2026-11-01T10:00:00Z","updated":"2026-11-01T10:00:00Z","from":0,"to":100,"messages":4,
	"digest":{"notes":[{"kind":"prompt","text":"fix it","at":"2026-11-01T10:00:00Z"},{"kind":"failure","tool":"Bash","input":"npm test","exit_code":1,"text":"FAIL"},{"kind":"followup","text":"Using pnpm."}],"prompts":1,"failures":1}}`
	e, err := Parse("queue/q-01JDQX5Z0000000000000000AA.json", []byte(old))
	if err != nil || len(e.Digest.Notes) != 3 || e.Digest.Notes[2].Outcome != "" || e.Digest.Subagents != 0 {
		t.Fatalf("old entry: %+v, %v", e, err)
	}
	e.Digest.Notes = append(e.Digest.Notes, Note{Kind: NoteHook, Tool: "Stop", Text: "commit first"},
		Note{Kind: NoteFollowup, Tool: "Bash", Input: "pnpm test", Outcome: OutcomeOK, Agent: "a1"})
	e.Digest.Subagents = 1
	data, err := e.Render()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(Path(e.ID), data)
	if err != nil || back.Digest.Notes[4].Outcome != OutcomeOK || back.Digest.Notes[4].Agent != "a1" || back.Digest.Subagents != 1 {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
}

// samplesDir holds real transcripts of other projects (see its SOURCES.md); not part of
// this repository, read where it exists.
const samplesDir = "../../shared/samples"

// The real sessions digest to something, a 2.0 Warmup agent beside its session is left
// out, and a Codex session's polls never reach a note.
func TestDigestSamples(t *testing.T) {
	if _, err := os.Stat(samplesDir); err != nil {
		t.Skipf("no samples: %v", err)
	}
	for _, tt := range []struct {
		file             string
		prompts, minimum int
	}{
		{"claude/-tmp-private/4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl", 3, 4},
		{"claude/session-9eda1058_v2.1.4.jsonl", 3, 5},
		{"claude/e9fb405b_v2.1.7_turn-2.jsonl", 1, 2},
		{"codex/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.first60.jsonl", 2, 3},
	} {
		t.Run(filepath.Base(tt.file), func(t *testing.T) {
			path := filepath.Join(samplesDir, tt.file)
			s, err := transcript.ReadFile(path)
			if err != nil {
				t.Skip(err)
			}
			side, left := readSubagents(context.Background(), path, time.Time{})
			if s.Harness != transcript.HarnessClaude {
				side = nil
			}
			d := BuildDigest(append(s.Messages, subagentPart(s.Messages, side, time.Time{})...), 48<<10)
			if d.Prompts != tt.prompts || len(d.Notes) < tt.minimum || d.Subagents != 0 || left != 0 {
				t.Errorf("prompts %d, %d notes (%s), subagents %d, left out %d", d.Prompts, len(d.Notes), kinds(d), d.Subagents, left)
			}
			for _, n := range d.Notes {
				if strings.Contains(n.Input, "session_id") || n.Text == "Warmup" {
					t.Errorf("note %+v", n)
				}
			}
		})
	}
}

// Secrets are redacted in every note kind, the new ones included.
func TestDigestRedactsEveryKind(t *testing.T) {
	const token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	c := newCC("s-secret", t0)
	c.prompt("deploy with GITHUB_TOKEN=" + token)
	c.bash("1", "01", "gh release create v1 --token "+token)
	c.result("01", "Exit code 1\nHTTP 401 for token "+token, true)
	c.say("2", "Retrying with the token "+token+" from the environment.")
	c.bash("2", "02", "GH_TOKEN="+token+" gh release create v1")
	c.result("02", "https://github.com/acme/shop/releases/tag/v1", false)
	c.prompt("Stop hook feedback:\n[./check.sh]: token "+token+" is in .env, do not commit it", `"isMeta":true`)
	msgs := c.messages(t)
	sub := &cc{session: "s-secret", agent: "a1", t0: t0.Add(time.Minute)}
	sub.prompt("Check that " + token + " has the repo scope.")
	sub.say("s1", "The token "+token+" has the repo scope.")
	for _, m := range sub.messages(t) {
		m.Sidechain = true
		msgs = append(msgs, m)
	}
	d := BuildDigest(msgs, 48<<10)
	if got := kinds(d); got != "prompt failure(Bash) followup(Bash) conclusion hook(Stop) subagent@a1 conclusion@a1" {
		t.Fatalf("notes = %s", got)
	}
	for _, n := range d.Notes {
		for _, s := range []string{n.Text, n.Input, n.Tool, n.Agent} {
			if strings.Contains(s, "ghp_") {
				t.Errorf("%s note keeps the token: %q", n.Kind, s)
			}
		}
	}
}

// Paths that name the person — their home directory, Claude Code's encoded project folder,
// their login as a path segment — reach the digest as ~ and <user>: the digest is committed
// and synced.
func TestDigestHidesTheUsersPaths(t *testing.T) {
	home := filepath.Join(t.TempDir(), "Users", "ada")
	t.Setenv("HOME", home)
	encoded := strings.NewReplacer("/", "-", ".", "-", "_", "-").Replace(home)
	c := newCC("s-paths", t0)
	c.prompt("read " + home + "/src/shop/main.go and the log in ~/.claude/projects/" + encoded + "-src-shop/s.jsonl")
	c.bash("1", "01", "go test "+home+"/src/shop/...")
	c.result("01", "--- FAIL: TestCart ("+home+"/src/shop/cart_test.go:12)", true)
	c.say("2", "Fixed the cart test.")
	d := BuildDigest(c.messages(t), 48<<10)
	data, _ := json.Marshal(d)
	if strings.Contains(string(data), home) || strings.Contains(string(data), encoded) {
		t.Fatalf("the home directory reached the digest:\n%s", data)
	}
	for _, want := range []string{"read ~/src/shop/main.go", "go test ~/src/shop/...", "(~/src/shop/cart_test.go:12)", "projects/~-src-shop/s.jsonl"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the digest lacks %q:\n%s", want, data)
		}
	}
}

// ClipWithin keeps a text to n characters in all, the cut's mark included, and leaves a text
// that fits alone.
func TestClipWithin(t *testing.T) {
	for _, tt := range []struct{ len, n int }{{10, 50}, {50, 50}, {51, 50}, {200, 50}, {5000, 120}, {100000, 997}, {300, 40}} {
		s := strings.Repeat("é", tt.len)
		got := ClipWithin(s, tt.n)
		if c := utf8.RuneCountInString(got); c > tt.n {
			t.Errorf("ClipWithin(%d characters, %d) kept %d", tt.len, tt.n, c)
		}
		if tt.len <= tt.n && got != s {
			t.Errorf("ClipWithin(%d characters, %d) changed a text that fits", tt.len, tt.n)
		}
		if tt.len > tt.n && !strings.Contains(got, "characters cut") {
			t.Errorf("ClipWithin(%d characters, %d) = %q: no mark of the cut", tt.len, tt.n, got)
		}
	}
}
