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

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/transcript"
)

func msg(role transcript.Role, kind transcript.Kind, text string) transcript.Message {
	return transcript.Message{Role: role, Kind: kind, Text: text}
}

func TestBuildDigest(t *testing.T) {
	one := 1
	msgs := []transcript.Message{
		msg(transcript.RoleUser, transcript.KindText, "install the deps"),
		msg(transcript.RoleAssistant, transcript.KindThinking, "hmm"),
		msg(transcript.RoleAssistant, transcript.KindText, "Running npm install."),
		{Role: transcript.RoleAssistant, Kind: transcript.KindToolCall, ToolName: "Bash", ToolInput: `npm install --token=ghp_abcdefghijklmnopqrstuvwxyz0123456789`, CallID: "c1"},
		{Role: transcript.RoleTool, Kind: transcript.KindToolResult, Text: "npm ERR! use pnpm", CallID: "c1", IsError: true, ExitCode: &one},
		msg(transcript.RoleAssistant, transcript.KindText, "npm failed; trying pnpm."),
		{Role: transcript.RoleAssistant, Kind: transcript.KindToolCall, ToolName: "Bash", ToolInput: "pnpm install", CallID: "c2"},
		{Role: transcript.RoleTool, Kind: transcript.KindToolResult, Text: "done", CallID: "c2"},
		msg(transcript.RoleUser, transcript.KindText, "<command-name>/clear</command-name>"),
		{Role: transcript.RoleUser, Kind: transcript.KindText, Text: "a subagent prompt", Sidechain: true},
		msg(transcript.RoleUser, transcript.KindText, "great, now run the tests"),
		msg(transcript.RoleAssistant, transcript.KindText, "All 42 tests pass."),
	}
	d := BuildDigest(msgs, 48<<10)
	var kinds []string
	for _, n := range d.Notes {
		kinds = append(kinds, n.Kind)
	}
	// the sidechain message, without a timestamp, is a subagent's part placed last
	want := "prompt failure followup conclusion prompt conclusion subagent"
	if got := strings.Join(kinds, " "); got != want {
		t.Fatalf("notes = %s, want %s", got, want)
	}
	if d.Prompts != 2 || d.Failures != 1 || d.Subagents != 1 || d.Truncated {
		t.Fatalf("counts: %+v", d)
	}
	f := d.Notes[1]
	if f.Tool != "Bash" || f.ExitCode == nil || *f.ExitCode != 1 || f.Text != "npm ERR! use pnpm" {
		t.Fatalf("failure note = %+v", f)
	}
	if strings.Contains(f.Input, "ghp_") || !strings.Contains(f.Input, "REDACTED") {
		t.Fatalf("secret in the digest: %q", f.Input)
	}
	if fu := d.Notes[2]; fu.Text != "npm failed; trying pnpm." || fu.Tool != "Bash" || fu.Input != "pnpm install" || fu.Outcome != OutcomeOK ||
		d.Notes[3].Text != "npm failed; trying pnpm." {
		t.Fatalf("followup/conclusion = %+v / %+v", d.Notes[2], d.Notes[3])
	}
}

// TestDigestRedactsBeforeClipping puts a secret where the clip of each kind of note cuts a
// long text: the cut must not leave a piece of it that no longer has its shape.
func TestDigestRedactsBeforeClipping(t *testing.T) {
	const key = "SK2b92bcd013e7b2fad6e57dd6d987df49" // a Twilio API key: SK and exactly 32 hex digits
	at := func(cut int) string {                     // the cut'th character is the fourth from the end of the key
		return strings.Repeat("x", cut-len(key)+3) + " " + key + " " + strings.Repeat("y", 2*cut)
	}
	one := 1
	msgs := []transcript.Message{
		msg(transcript.RoleUser, transcript.KindText, at(maxPrompt*2/3)),
		{Role: transcript.RoleAssistant, Kind: transcript.KindToolCall, ToolName: "Bash", ToolInput: at(maxInput * 2 / 3), CallID: "c1"},
		{Role: transcript.RoleTool, Kind: transcript.KindToolResult, Text: at(maxOutput * 2 / 3), CallID: "c1", IsError: true, ExitCode: &one},
		msg(transcript.RoleAssistant, transcript.KindText, at(maxConclusion*2/3)),
		msg(transcript.RoleUser, transcript.KindText, "thanks"),
	}
	d := BuildDigest(msgs, 48<<10)
	if len(d.Notes) != 5 {
		t.Fatalf("notes: %+v", d.Notes)
	}
	for _, n := range d.Notes {
		for _, s := range []string{n.Text, n.Input} {
			if k := strings.Index(s, key[:12]); k >= 0 {
				t.Errorf("%s note keeps a piece of the key: %q", n.Kind, s[k:min(len(s), k+len(key))])
			}
		}
	}
}

func TestBuildDigestStaysInBudget(t *testing.T) {
	var msgs []transcript.Message
	for i := 0; i < 400; i++ {
		msgs = append(msgs, msg(transcript.RoleUser, transcript.KindText, fmt.Sprintf("prompt %d %s", i, strings.Repeat("word ", 300))))
		msgs = append(msgs, msg(transcript.RoleAssistant, transcript.KindText, fmt.Sprintf("answer %d %s", i, strings.Repeat("text ", 300))))
	}
	for _, budget := range []int{4 << 10, 48 << 10} {
		d := BuildDigest(msgs, budget)
		b, _ := json.Marshal(d)
		if len(b) > budget || !d.Truncated {
			t.Fatalf("budget %d: digest is %d bytes, truncated %v", budget, len(b), d.Truncated)
		}
		if !strings.HasPrefix(d.Notes[0].Text, "prompt 0 ") || !strings.HasPrefix(d.Notes[len(d.Notes)-1].Text, "answer 399 ") {
			t.Fatalf("budget %d: the start and the end must survive: %q … %q", budget, d.Notes[0].Text[:12], d.Notes[len(d.Notes)-1].Text[:12])
		}
	}
}

func newRepo(t testing.TB) *gitstore.Repo {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	r, _, err := gitstore.Init(context.Background(), filepath.Join(t.TempDir(), "mem"), gitstore.InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// claudeLine is one user or assistant record of a Claude Code transcript.
func claudeLine(role, text string) string {
	content, _ := json.Marshal(text)
	return fmt.Sprintf(`{"type":%q,"sessionId":"s1","cwd":"/p","uuid":"u%d","timestamp":"2026-11-21T09:00:00Z","message":{"role":%q,"content":%s}}`+"\n",
		role, time.Now().UnixNano(), role, content)
}

func TestEnqueueGates(t *testing.T) {
	r := newRepo(t)
	ctx := context.Background()
	tr := filepath.Join(t.TempDir(), "s1.jsonl")
	os.WriteFile(tr, []byte(claudeLine("user", "fix the login bug")+claudeLine("assistant", "Fixed: the state was compared before decoding.")), 0o644)
	c := Capture{Harness: "claude-code", Session: "s1", TranscriptPath: tr, Project: "github.com/acme/auth",
		Machine: "laptop", Now: time.Now(), DigestBytes: 48 << 10, GrowthBytes: 1000}
	step := func(trigger string, wantCommit bool) *Entry {
		t.Helper()
		c.Trigger = trigger
		skip := Gate(r, c) // what a hook asks first
		res, err := Enqueue(ctx, r, c)
		if err != nil {
			t.Fatal(err)
		}
		if (skip != "") != !res.Committed || skip != "" && skip != res.Skipped {
			t.Fatalf("%s: Gate says %q, Enqueue committed %v (skipped: %q)", trigger, skip, res.Committed, res.Skipped)
		}
		if res.Committed != wantCommit {
			t.Fatalf("%s: committed = %v (skipped: %s)", trigger, res.Committed, res.Skipped)
		}
		return res.Entry
	}
	appendLines := func(n int) {
		f, _ := os.OpenFile(tr, os.O_APPEND|os.O_WRONLY, 0)
		for i := 0; i < n; i++ {
			f.WriteString(claudeLine("user", fmt.Sprintf("next step %d", i)))
		}
		f.Close()
	}
	waiting := func(want bool) {
		t.Helper()
		pending, _, err := Count(r)
		if err != nil || Waiting(r) != want || (pending > 0) != want {
			t.Fatalf("Waiting = %v, Count = %d (%v), want waiting %v", Waiting(r), pending, err, want)
		}
	}
	waiting(false)
	first := step(TriggerStop, true) // the first Stop captures
	waiting(true)
	step(TriggerStop, false)               // nothing new
	step(TriggerPreCompact, false)         // nothing new, even for PreCompact
	appendLines(1)                         // a little growth
	step(TriggerStop, false)               // below the Stop gate
	again := step(TriggerSessionEnd, true) // SessionEnd bypasses it
	if again.ID != first.ID || again.From != 0 || again.Digest.Prompts != 2 {
		t.Fatalf("a pending entry must be rewritten to cover the whole session: %+v", again)
	}
	appendLines(20)
	step(TriggerStop, true)
	items, bad, err := List(r)
	if err != nil || len(bad) != 0 || len(items) != 1 {
		t.Fatalf("List = %d items, %v, %v", len(items), bad, err)
	}

	// once drained (the entry is gone), the next capture covers only what is new
	if _, err := Drop(ctx, r, first.ID); err != nil {
		t.Fatal(err)
	}
	waiting(false)
	appendLines(1)
	next := step(TriggerPreCompact, true)
	if next.ID == first.ID || next.From == 0 || next.Digest.Prompts != 1 {
		t.Fatalf("after the drain the capture must start where the last one ended: %+v", next)
	}
}

func TestEnqueueWithoutTranscript(t *testing.T) {
	r := newRepo(t)
	c := Capture{Harness: "codex", Session: "s2", Trigger: TriggerStop, LastMessage: "Done: tests pass.",
		Project: "_global", Now: time.Now(), DigestBytes: 48 << 10}
	for i, want := range []bool{true, false} {
		res, err := Enqueue(context.Background(), r, c)
		if err != nil || res.Committed != want {
			t.Fatalf("stop %d: %+v, %v", i, res, err)
		}
	}
	c.LastMessage = ""
	c.Session = "s3"
	if res, err := Enqueue(context.Background(), r, c); err != nil || res.Committed {
		t.Fatalf("nothing to capture: %+v, %v", res, err)
	}
	c.TranscriptPath = "/dev/zero" // never read a device
	if res, err := Enqueue(context.Background(), r, c); err != nil || res.Committed {
		t.Fatalf("/dev/zero: %+v, %v", res, err)
	}
}

func TestParseNamesFileAndLine(t *testing.T) {
	_, err := Parse("queue/q-x.json", []byte("{\n  \"id\": \"q-1\",\n  oops\n}"))
	if err == nil || !strings.HasPrefix(err.Error(), "queue/q-x.json:3:") {
		t.Fatalf("error = %v", err)
	}
}

// An entry is known by its id: a file of the queue that claims another's (as a pushed one
// could, to pass for the user's own capture in provenance and the drain) does not parse.
func TestParseRefusesAnotherEntrysID(t *testing.T) {
	data := []byte(`{"id": "q-01JDQX5Z0000000000000000AA", "session": "s"}`)
	for _, path := range []string{"queue/q-01JDQX5Z0000000000000000AB.json", "queue/failed/q-01JDQX5Z0000000000000000AB.json"} {
		if _, err := Parse(path, data); err == nil || !strings.Contains(err.Error(), "claims id") {
			t.Errorf("%s: %v", path, err)
		}
	}
	for _, path := range []string{Path("q-01JDQX5Z0000000000000000AA"), FailedPath("q-01JDQX5Z0000000000000000AA")} {
		if _, err := Parse(path, data); err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
}

// TestEnqueueLostMarks: a hook stopped after its commit but before it saved the session
// marks must not make the next capture commit the same range again.
func TestEnqueueLostMarks(t *testing.T) {
	r := newRepo(t)
	ctx := context.Background()
	tr := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(tr, []byte(claudeLine("user", "one")+claudeLine("assistant", "done")), 0o644)
	c := Capture{Harness: "claude-code", Session: "s", TranscriptPath: tr, Trigger: TriggerPreCompact, Project: "_global",
		Now: time.Now(), DigestBytes: 48 << 10}
	if res, err := Enqueue(ctx, r, c); err != nil || !res.Committed {
		t.Fatal(res, err)
	}
	saved, _ := r.ReadState(marksPath(c.Harness, c.Session))
	f, _ := os.OpenFile(tr, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(claudeLine("user", "two"))
	f.Close()
	if res, err := Enqueue(ctx, r, c); err != nil || !res.Committed {
		t.Fatal(res, err)
	}
	r.WriteState(marksPath(c.Harness, c.Session), saved) // as if the second hook died before saving
	head, _ := r.Head()
	res, err := Enqueue(ctx, r, c)
	if err != nil || res.Committed {
		t.Fatalf("the same range was captured again: %+v, %v", res, err)
	}
	if now, _ := r.Head(); now != head {
		t.Fatal("a commit was made")
	}
}

// TestEnqueueNeedsSessionRecords: a payload may name any file as its transcript; one that
// holds no message of either host's format makes no commit (an empty capture would reach
// the drain as a session) and says why. A real transcript, the control, is captured.
func TestEnqueueNeedsSessionRecords(t *testing.T) {
	r := newRepo(t)
	ctx := context.Background()
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sparse := filepath.Join(dir, "sparse.jsonl")
	if f, err := os.Create(sparse); err != nil {
		t.Fatal(err)
	} else {
		f.Truncate(64 << 20) // all holes: reads as zeros
		f.Close()
	}
	binary := make([]byte, 1<<20)
	for i := range binary {
		binary[i] = byte(i*7919 + i>>8)
	}
	for _, tt := range []struct {
		name, path, harness, why string
		commit                   bool
	}{
		{"a shadow file", write("shadow", []byte("root:$6$abc$def:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n")), "claude-code", "malformed json ×2", false},
		{"a sparse file", sparse, "claude-code", "no complete line", false},
		{"a binary", write("blob.bin", binary), "codex", "malformed json ×", false},
		{"markdown", write("notes.md", []byte("# Notes\n\n- use pnpm\n")), "claude-code", "malformed json", false},
		{"JSON lines of another program", write("other.jsonl", []byte(`{"level":"info","msg":"started"}`+"\n"+`[1,2,3]`+"\n")), "codex", "no record type ×1, not a json object ×1", false},
		{"Claude metadata only", write("meta.jsonl", []byte(`{"type":"file-history-snapshot","messageId":"m1","snapshot":{}}`+"\n")), "claude-code", "none a message", false},
		{"an empty file", write("empty.jsonl", nil), "claude-code", "is empty", false},
		{"a Claude transcript", write("real.jsonl", []byte(claudeLine("user", "fix the build")+claudeLine("assistant", "Fixed."))), "claude-code", "", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := r.Head()
			res, err := Enqueue(ctx, r, Capture{Harness: tt.harness, Session: "s-" + tt.name, TranscriptPath: tt.path,
				LastMessage: "Done.", Trigger: TriggerPreCompact, Project: "_global", Now: time.Now(), DigestBytes: 48 << 10})
			if err != nil {
				t.Fatal(err)
			}
			after, _ := r.Head()
			if res.Committed != tt.commit || (after != before) != tt.commit {
				t.Fatalf("committed = %v (HEAD moved: %v), want %v; skipped: %s", res.Committed, after != before, tt.commit, res.Skipped)
			}
			if tt.commit {
				return
			}
			if !res.NoRecords || !strings.Contains(res.Skipped, tt.why) || !strings.Contains(res.Skipped, tt.path) {
				t.Fatalf("skipped = %q (no records: %v); want the path and %q", res.Skipped, res.NoRecords, tt.why)
			}
			if marks, _ := r.ReadState(marksPath(tt.harness, "s-"+tt.name)); marks != nil {
				t.Fatalf("session marks were saved for a capture that made no commit: %s", marks)
			}
		})
	}
}
