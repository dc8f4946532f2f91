package transcript

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// The project's own fixtures, with every count stated: they are the spec of what a reader
// makes of a whole session.
func TestFixtures(t *testing.T) {
	tests := []struct {
		file                            string
		harness                         Harness
		id, cwd, branch, model, version string
		lines                           int
		counts                          map[string]int
		errors                          int // tool results with IsError
		exits                           []string
		sidechain                       int
		prompts                         []string // RoleUser texts, in order
	}{{
		file: "claude-session.jsonl", harness: HarnessClaude,
		id: "5b0c2f7e-3d1a-4c8e-9f2b-7a6d1e0c4b93", cwd: "/home/dev/src/webshop", branch: "fix/checkout-tests",
		model: "claude-sonnet-4-5-20250929", version: "2.1.7", lines: 26,
		counts: map[string]int{"system/text": 3, "user/text": 4, "assistant/text": 4, "assistant/thinking": 2,
			"assistant/tool_call": 4, "tool/tool_result": 4},
		errors: 2, exits: []string{"1"}, sidechain: 2,
		prompts: []string{"Warmup", "the checkout tests fail on CI, can you run them locally and fix it?",
			"[Request interrupted by user for tool use]", "no, use pnpm instead of npm"},
	}, {
		file: "claude-session/subagents/agent-a3f9c21.jsonl", harness: HarnessClaude,
		id: "5b0c2f7e-3d1a-4c8e-9f2b-7a6d1e0c4b93", cwd: "/home/dev/src/webshop", branch: "fix/checkout-tests",
		model: "claude-sonnet-4-5-20250929", version: "2.1.7", lines: 6,
		counts:    map[string]int{"user/text": 1, "assistant/text": 1, "assistant/tool_call": 2, "tool/tool_result": 2},
		sidechain: 6,
		prompts:   []string{"Find the checkout test files and how CI runs them. Report paths only."},
	}, {
		file: "codex-rollout.jsonl", harness: HarnessCodex,
		id: "019cb7e4-2f61-7a3d-8e52-6c0d9b4a7f18", cwd: "/home/dev/src/api", branch: "main",
		model: "gpt-5.5", version: "0.128.0", lines: 38,
		counts: map[string]int{"system/text": 2, "user/text": 2, "assistant/text": 3, "assistant/thinking": 1,
			"assistant/tool_call": 3, "tool/tool_result": 3},
		errors: 1, exits: []string{"1", "0", "0"},
		prompts: []string{"run the migration tests", "no, use pnpm instead of npm"},
	}, {
		file: "codex-legacy.jsonl", harness: HarnessCodex,
		id: "5f3a9d2e-8c41-4b7a-9e06-2d1c7b4f8a35", cwd: "/home/dev/src/tool", branch: "lint-fixes", lines: 21,
		counts: map[string]int{"system/text": 1, "user/text": 2, "assistant/text": 2, "assistant/thinking": 1,
			"assistant/tool_call": 3, "tool/tool_result": 3},
		errors: 1, exits: []string{"2", "0", "0"},
		prompts: []string{"make lint pass", "don't silence it with nolint, handle the error"},
	}}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join(fixtureDir, tt.file)
			s, err := ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			data := fixture(t, tt.file)
			checkInvariants(t, s, int64(len(data)))
			if s.Harness != tt.harness || s.ID != tt.id || s.CWD != tt.cwd || s.Branch != tt.branch ||
				s.Model != tt.model || s.Version != tt.version {
				t.Errorf("session %s %s cwd=%s branch=%s model=%s version=%s", s.Harness, s.ID, s.CWD, s.Branch, s.Model, s.Version)
			}
			if s.Lines != tt.lines || s.Skipped != 0 || s.Torn || s.End != int64(len(data)) {
				t.Errorf("Lines %d Skipped %d %v Torn %v End %d (size %d)", s.Lines, s.Skipped, s.SkipReasons, s.Torn, s.End, len(data))
			}
			if got := counts(s.Messages); !reflect.DeepEqual(got, tt.counts) {
				t.Errorf("counts = %v, want %v", got, tt.counts)
			}
			var errs, side int
			var exits, prompts []string
			for _, m := range s.Messages {
				if m.IsError {
					errs++
				}
				if m.ExitCode != nil {
					exits = append(exits, exit(*m.ExitCode))
				}
				if m.Sidechain {
					side++
				}
				if m.Role == RoleUser {
					prompts = append(prompts, m.Text)
				}
				if m.Kind == KindToolResult && m.ToolName == "" {
					t.Errorf("result %s has no tool name", m.CallID)
				}
			}
			if errs != tt.errors || side != tt.sidechain || !reflect.DeepEqual(exits, tt.exits) {
				t.Errorf("errors %d sidechain %d exits %v", errs, side, exits)
			}
			if !reflect.DeepEqual(prompts, tt.prompts) {
				t.Errorf("prompts = %q", prompts)
			}
		})
	}
}

// The story the fixtures tell, as the queue digest will read it: a failed call, then the
// correction, then a call that worked.
func TestFixtureStory(t *testing.T) {
	for _, file := range []string{"claude-session.jsonl", "codex-rollout.jsonl"} {
		s, err := ReadFile(filepath.Join(fixtureDir, file))
		if err != nil {
			t.Fatal(err)
		}
		failed, corrected, fixed := -1, -1, -1
		for i, m := range s.Messages {
			switch {
			case failed < 0 && m.Kind == KindToolResult && m.IsError && m.ExitCode != nil && *m.ExitCode == 1:
				failed = i
			case failed >= 0 && corrected < 0 && m.Role == RoleUser && m.Text == "no, use pnpm instead of npm":
				corrected = i
			case corrected >= 0 && m.Kind == KindToolCall && strings.Contains(m.ToolInput, "pnpm install --frozen-lockfile"):
				fixed = i
			}
		}
		if failed < 0 || corrected < 0 || fixed < 0 {
			t.Errorf("%s: failed %d, corrected %d, fixed %d", file, failed, corrected, fixed)
		}
	}
}

func TestTornLastLine(t *testing.T) {
	for _, tt := range []struct {
		file string
		h    Harness
	}{{"claude-session.jsonl", HarnessClaude}, {"codex-rollout.jsonl", HarnessCodex}} {
		data := fixture(t, tt.file)
		whole := readString(t, tt.h, string(data))
		// Cut the last line in half: the host is still writing it.
		last := bytes.LastIndexByte(data[:len(data)-1], '\n') + 1
		cut := data[:last+(len(data)-last)/2]
		s := readString(t, tt.h, string(cut))
		if !s.Torn || s.End != int64(last) || s.Lines != whole.Lines-1 || s.Skipped != 0 {
			t.Errorf("%s: Torn %v End %d (want %d) Lines %d Skipped %d", tt.file, s.Torn, s.End, last, s.Lines, s.Skipped)
		}
		// The last line complete but without its newline is consumed.
		s = readString(t, tt.h, string(data[:len(data)-1]))
		if s.Torn || s.End != int64(len(data)-1) || s.Lines != whole.Lines || len(s.Messages) != len(whole.Messages) {
			t.Errorf("%s unterminated: Torn %v End %d Lines %d messages %d", tt.file, s.Torn, s.End, s.Lines, len(s.Messages))
		}
	}
}

func TestGarbageMidFile(t *testing.T) {
	for _, tt := range []struct {
		file string
		h    Harness
	}{{"claude-session.jsonl", HarnessClaude}, {"codex-rollout.jsonl", HarnessCodex}, {"codex-legacy.jsonl", HarnessCodex}} {
		data := fixture(t, tt.file)
		clean := readString(t, tt.h, string(data))
		ls := strings.SplitAfter(string(data), "\n")
		mid := len(ls) / 2
		garbage := []string{"not json at all\n", "{\"half\": \n", "[1,2]\n", "{}\n", "\x00\xff\xfe\n", "\n"}
		dirty := strings.Join(ls[:mid], "") + strings.Join(garbage, "") + strings.Join(ls[mid:], "")
		s := readString(t, tt.h, dirty)
		if s.Skipped != 5 || s.Lines != clean.Lines+len(garbage)-1 {
			t.Errorf("%s: Skipped %d %v Lines %d", tt.file, s.Skipped, s.SkipReasons, s.Lines)
		}
		sameMsgs(t, s.Messages, view(clean.Messages))
	}
}

// Reading a file that grows, in two reads (the first while the second part is not yet
// written, the second from the first's End), gives the messages of one read of the whole,
// except for the joins ReadFileFrom documents as not crossing the offset.
func TestResumeEquivalence(t *testing.T) {
	for _, file := range []string{"claude-session.jsonl", "claude-session/subagents/agent-a3f9c21.jsonl", "codex-rollout.jsonl", "codex-legacy.jsonl"} {
		t.Run(file, func(t *testing.T) { checkResume(t, filepath.Join(fixtureDir, file)) })
	}
}

func checkResume(t *testing.T, file string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	h := whole.Harness
	calls := map[string]int64{}
	for _, m := range whole.Messages {
		if m.Kind == KindToolCall {
			calls[m.CallID] = m.Offset
		}
	}
	// Cut at every line boundary and in the middle of every line.
	var cuts []int
	for i := 0; i < len(data); i++ {
		if data[i] == '\n' {
			cuts = append(cuts, i+1)
		}
	}
	for _, c := range append([]int(nil), cuts...) {
		cuts = append(cuts, c-(c-bytes.LastIndexByte(data[:c-1], '\n'))/2)
	}
	path := filepath.Join(t.TempDir(), filepath.Base(file))
	for _, cut := range cuts {
		if err := os.WriteFile(path, data[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		first, err := ReadFileFrom(path, 0, h)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		second, err := ReadFileFrom(path, first.End, h)
		if err != nil {
			t.Fatal(err)
		}
		split := first.End
		if pollCut(data, split) {
			continue
		}
		if second.End != int64(len(data)) || first.Lines+second.Lines != whole.Lines || second.Torn {
			t.Fatalf("cut %d: End %d Lines %d+%d want %d", cut, second.End, first.Lines, second.Lines, whole.Lines)
		}
		rest := foldOrphans(first.Messages, second.Messages)
		got := append(append([]Message(nil), first.Messages...), rest...)
		if len(got) != len(whole.Messages) {
			t.Fatalf("cut %d: %d+%d messages, want %d", cut, len(first.Messages), len(second.Messages), len(whole.Messages))
		}
		for i := range got {
			g, w := got[i], whole.Messages[i]
			if g.Kind == KindToolResult {
				// The result's call is before the offset: no name for it.
				if g.Offset >= split && calls[g.CallID] < split && g.ToolName == "" {
					g.ToolName = w.ToolName
				}
				// A Codex end event after the offset cannot reach back to its result.
				if h == HarnessCodex && g.Offset < split && bytes.Contains(data[split:], []byte(`"exec_command_end","call_id":"`+g.CallID)) {
					g.ExitCode, g.IsError = w.ExitCode, w.IsError
				}
			}
			if !reflect.DeepEqual(g, w) {
				t.Fatalf("cut %d (offset %d): message %d\n got %+v\nwant %+v", cut, split, i, g, w)
			}
		}
	}
}

// pollCut reports whether split falls between a Codex write_stdin call and its output: the
// read after it meets an output whose call it never saw, which it cannot tell from any
// other (ReadFileFrom's documented limit).
func pollCut(data []byte, split int64) bool {
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		if !bytes.Contains(line, []byte(`"name":"write_stdin"`)) {
			continue
		}
		i := bytes.Index(line, []byte(`"call_id":"`))
		if i < 0 {
			continue
		}
		id := line[i+len(`"call_id":"`):]
		id = id[:bytes.IndexByte(id, '"')]
		call := int64(bytes.Index(data, line))
		out := int64(bytes.Index(data, []byte(`"function_call_output","call_id":"`+string(id)+`"`)))
		if out < 0 {
			continue
		}
		out = int64(bytes.LastIndexByte(data[:out], '\n') + 1)
		if split > call && split <= out {
			return true
		}
	}
	return false
}

// foldOrphans states what a read after an offset makes of a Codex command polled across
// it: an orphan result (Process set) whose output continues the result the read before the
// offset gave. It folds each orphan into that earlier result (in place, in before) and
// returns after without them.
func foldOrphans(before, after []Message) []Message {
	var out []Message
	for _, m := range after {
		i := -1
		if m.Process != "" && m.Kind == KindToolResult {
			i = slices.IndexFunc(before, func(b Message) bool { return b.Process == m.Process && b.Kind == KindToolResult })
		}
		if i < 0 {
			out = append(out, m)
			continue
		}
		b := &before[i]
		if runningProcess(b.Text) != "" { // not folded yet: the header is still there
			b.Text, _ = unifiedBody(b.Text)
		}
		b.Text = joinOutput(b.Text, m.Text)
		if m.ExitCode != nil {
			b.ExitCode, b.IsError = m.ExitCode, m.IsError
		}
	}
	return out
}

// A last line that lacks only its newline is consumed; the newline that follows it later
// is a blank line to the next read, and changes nothing.
func TestResumeAfterUnterminatedLine(t *testing.T) {
	data := fixture(t, "codex-rollout.jsonl")
	whole := readString(t, HarnessCodex, string(data))
	path := filepath.Join(t.TempDir(), "rollout.jsonl")
	cut := bytes.Index(data, []byte("no, use pnpm")) // inside a line
	cut += bytes.IndexByte(data[cut:], '\n')         // just before its newline
	if err := os.WriteFile(path, data[:cut], 0o644); err != nil {
		t.Fatal(err)
	}
	first, err := ReadFileFrom(path, 0, HarnessCodex)
	if err != nil || first.Torn || first.End != int64(cut) {
		t.Fatalf("first read: %v Torn %v End %d", err, first.Torn, first.End)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	second, err := ReadFileFrom(path, first.End, HarnessCodex)
	if err != nil {
		t.Fatal(err)
	}
	if first.Lines+second.Lines != whole.Lines || len(first.Messages)+len(second.Messages) != len(whole.Messages) || second.Skipped != 0 {
		t.Errorf("Lines %d+%d (want %d), messages %d+%d (want %d), Skipped %d",
			first.Lines, second.Lines, whole.Lines, len(first.Messages), len(second.Messages), len(whole.Messages), second.Skipped)
	}
}

func TestReadFileFromSessionFields(t *testing.T) {
	// A resumed read of a rollout takes the session id from the file name.
	dir := filepath.Join(t.TempDir(), ".codex", "sessions", "2026", "03", "04")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	data := fixture(t, "codex-rollout.jsonl")
	path := filepath.Join(dir, "rollout-2026-03-04T10-12-07-019cb7e4-2f61-7a3d-8e52-6c0d9b4a7f18.jsonl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	first := bytes.IndexByte(data, '\n') + 1
	s, err := ReadFileFrom(path, int64(first), "")
	if err != nil {
		t.Fatal(err)
	}
	if s.Harness != HarnessCodex || s.ID != "019cb7e4-2f61-7a3d-8e52-6c0d9b4a7f18" || s.CWD != "/home/dev/src/api" {
		t.Errorf("resumed session %s %q cwd %q", s.Harness, s.ID, s.CWD)
	}
	if s.Messages[0].Offset <= int64(first) {
		t.Errorf("offsets are not absolute: %d", s.Messages[0].Offset)
	}
	// Past the end: nothing, and End stays.
	s, err = ReadFileFrom(path, int64(len(data))+10, HarnessCodex)
	if err != nil || len(s.Messages) != 0 || s.End != int64(len(data))+10 {
		t.Errorf("past end: %v %d messages End %d", err, len(s.Messages), s.End)
	}
	if _, err := ReadFileFrom(path, -1, HarnessCodex); err == nil {
		t.Error("negative offset accepted")
	}
	if _, err := ReadFileFrom(filepath.Join(dir, "missing.jsonl"), 0, HarnessCodex); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestReadFileDetects(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, content string) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		path, content string
		want          Harness
		id            string
		err           bool
	}{
		{path: "a.jsonl", content: string(fixture(t, "claude-session.jsonl")), want: HarnessClaude, id: "5b0c2f7e-3d1a-4c8e-9f2b-7a6d1e0c4b93"},
		{path: "b.jsonl", content: string(fixture(t, "codex-rollout.jsonl")), want: HarnessCodex, id: "019cb7e4-2f61-7a3d-8e52-6c0d9b4a7f18"},
		{path: "c.jsonl", content: string(fixture(t, "codex-legacy.jsonl")), want: HarnessCodex, id: "5f3a9d2e-8c41-4b7a-9e06-2d1c7b4f8a35"},
		// garbage first, then a line that tells
		{path: "d.jsonl", content: "oops\n{}\n" + lines(metaLine), want: HarnessCodex, id: "019e1625-789d-76c0-80ab-3724b5ddb799"},
		// empty or torn files: the path decides
		{path: ".codex/sessions/2026/05/11/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl",
			content: `{"timestamp":"2026-05-11T08:27:17.490Z","type":"sess`, want: HarnessCodex, id: "019e1625-789d-76c0-80ab-3724b5ddb799"},
		{path: ".claude/projects/-w-p/4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl", want: HarnessClaude, id: "4c2ddfdc-b619-4525-8d03-1950fb1b0257"},
		{path: "x/4c2ddfdc-b619-4525-8d03-1950fb1b0257/subagents/agent-a1.jsonl", want: HarnessClaude},
		{path: "unknown.jsonl", content: "", err: true},
		{path: "unknown2.jsonl", content: "{\"hello\":\"world\"}\n", err: true},
	}
	for _, tt := range tests {
		s, err := ReadFile(write(tt.path, tt.content))
		if tt.err {
			if !errors.Is(err, ErrUnknownHarness) {
				t.Errorf("%s: err = %v, want ErrUnknownHarness", tt.path, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.path, err)
			continue
		}
		if s.Harness != tt.want || s.ID != tt.id {
			t.Errorf("%s: %s %q, want %s %q", tt.path, s.Harness, s.ID, tt.want, tt.id)
		}
	}
	// A subagent file's messages are sidechain even when its records do not say so.
	p := write("y/s/subagents/agent-b2.jsonl", lines(userLine("u1", `"find the tests"`)))
	s, err := ReadFile(p)
	if err != nil || len(s.Messages) != 1 || !s.Messages[0].Sidechain {
		t.Errorf("subagent file: %v %+v", err, s)
	}
}

func TestDetect(t *testing.T) {
	tests := []struct {
		line string
		want Harness
		ok   bool
	}{
		{metaLine, HarnessCodex, true},
		{`{"timestamp":"2026-07-01T10:00:00Z","ordinal":0,"type":"session_meta","payload":{"id":"x"}}`, HarnessCodex, true},
		{`{"timestamp":"2026-07-01T10:00:00Z","type":"future_item","payload":{}}`, HarnessCodex, true},
		{`{"id":"c27a914d","timestamp":"2025-08-20T13:20:47.060Z","instructions":null,"git":{"branch":"main"}}`, HarnessCodex, true},
		{`{"record_type":"state"}`, HarnessCodex, true},
		{`{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}`, HarnessCodex, true},
		{"\xef\xbb\xbf" + `{"type":"function_call","name":"shell","arguments":"{}","call_id":"c"}` + "\r\n", HarnessCodex, true},
		{`{"type":"file-history-snapshot","messageId":"m","snapshot":{},"isSnapshotUpdate":false}`, HarnessClaude, true},
		{`{"type":"summary","summary":"x","leafUuid":"u"}`, HarnessClaude, true},
		{userLine("u1", `"hi"`), HarnessClaude, true},
		{`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-01-07T21:08:38.458Z","sessionId":"s","content":"x"}`, HarnessClaude, true},
		{`{"type":"brand-new-claude-record","sessionId":"s","uuid":"u"}`, HarnessClaude, true},
		{`{"type":"something"}`, "", false},
		{`{"hello":"world"}`, "", false},
		{`[1]`, "", false},
		{`{"type":"user",`, "", false},
		{``, "", false},
	}
	for _, tt := range tests {
		got, ok := Detect([]byte(tt.line))
		if got != tt.want || ok != tt.ok {
			t.Errorf("Detect(%.60q) = %q %v, want %q %v", tt.line, got, ok, tt.want, tt.ok)
		}
	}
}

func TestLongLinesAndLineEndings(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 3<<16) // 3 MB, many times the read buffer
	in := "\xef\xbb\xbf" + userLine("u1", `"first"`) + "\r\n" +
		asst("a1", "m1", bashUse) + "\r\n" +
		userLine("u2", `[{"tool_use_id":"toolu_1","type":"tool_result","content":"`+big+`"}]`) + "\n" +
		userLine("u3", `"last"`) + "\n"
	s := readString(t, HarnessClaude, in)
	if s.Skipped != 0 || len(s.Messages) != 4 {
		t.Fatalf("Skipped %d %v, %d messages", s.Skipped, s.SkipReasons, len(s.Messages))
	}
	if s.Messages[2].Text != big || s.Messages[2].ToolName != "Bash" {
		t.Errorf("big result: %d bytes, tool %q", len(s.Messages[2].Text), s.Messages[2].ToolName)
	}
	wantOff := int64(strings.Index(in, `{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/w/p","sessionId":"s-1","version":"2.1.7","gitBranch":"main","type":"user","message":{"role":"user","content":"last"`))
	if s.Messages[3].Offset != wantOff || s.End != int64(len(in)) {
		t.Errorf("offset %d want %d, End %d want %d", s.Messages[3].Offset, wantOff, s.End, len(in))
	}
}

type failingReader struct{ n int }

func (r *failingReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.ErrUnexpectedEOF
	}
	line := userLine("u1", `"hi"`) + "\n"
	r.n--
	return copy(p, line), nil
}

func TestReadErrors(t *testing.T) {
	s, err := ReadClaude(&failingReader{n: 1})
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("err = %v, want the reader's error", err)
	}
	if s == nil || len(s.Messages) != 1 {
		t.Errorf("what was read before the error is returned: %+v", s)
	}
	if _, err := Read(strings.NewReader(""), "windsurf"); !errors.Is(err, ErrUnknownHarness) {
		t.Errorf("unknown harness: %v", err)
	}
	for _, h := range []Harness{HarnessClaude, HarnessCodex, HarnessGemini, HarnessCopilot, HarnessCursor} {
		s, err := Read(strings.NewReader(""), h)
		if err != nil || s.Lines != 0 || s.End != 0 || s.Torn || len(s.Messages) != 0 {
			t.Errorf("%s empty input: %v %+v", h, err, s)
		}
	}
}

// filler reads as n bytes of 'a', without holding them.
type filler struct{ n int64 }

func (f *filler) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, io.EOF
	}
	k := int(min(int64(len(p)), f.n))
	for i := range p[:k] {
		p[i] = 'a'
	}
	f.n -= int64(k)
	return k, nil
}

// TestLinesOverMaxLine: a line longer than MaxLine (newline included) is read past without
// being kept, counted under SkipLongLine, and the lines around it are read as usual, offsets
// included; one of exactly MaxLine is kept; one still without its newline at the end is torn.
// The long lines come from a generator: holding them would defeat the point.
func TestLinesOverMaxLine(t *testing.T) {
	// a line whose text is n bytes of 'a': prefix + n + suffix, the suffix holding the newline
	claudeLong := func() (string, string) {
		whole := userLine("u-long", `"@"`) + "\n"
		at := strings.IndexByte(whole, '@')
		return whole[:at], whole[at+1:]
	}
	codexLong := func() (string, string) {
		whole := event(`{"type":"user_message","message":"@"}`) + "\n"
		at := strings.IndexByte(whole, '@')
		return whole[:at], whole[at+1:]
	}
	for _, tt := range []struct {
		name       string
		h          Harness
		before     string
		long       func() (string, string)
		size       int64 // of the whole long line, newline included
		newline    bool
		after      string
		wantMsgs   int
		wantSkip   int
		wantTorn   bool
		wantLongIn bool // the long line's message is among the messages
	}{
		{"claude, exactly MaxLine", HarnessClaude, userLine("u1", `"first"`) + "\n", claudeLong, MaxLine, true, userLine("u3", `"last"`) + "\n", 3, 0, false, true},
		{"claude, one byte over", HarnessClaude, userLine("u1", `"first"`) + "\n", claudeLong, MaxLine + 1, true, userLine("u3", `"last"`) + "\n", 2, 1, false, false},
		{"claude, 80 MB", HarnessClaude, userLine("u1", `"first"`) + "\n", claudeLong, 80 << 20, true, userLine("u3", `"last"`) + "\n", 2, 1, false, false},
		{"codex, 40 MB", HarnessCodex, metaLine + "\n", codexLong, 40 << 20, true, event(`{"type":"user_message","message":"last"}`) + "\n", 1, 1, false, false},
		{"claude, 40 MB still being written", HarnessClaude, userLine("u1", `"first"`) + "\n", claudeLong, 40 << 20, false, "", 1, 0, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			prefix, suffix := tt.long()
			if !tt.newline {
				suffix = strings.TrimSuffix(suffix, "\n")
			}
			body := tt.size - int64(len(prefix)) - int64(len(suffix))
			if !tt.newline {
				body-- // the same line, its newline not written yet
			}
			r := io.MultiReader(strings.NewReader(tt.before), strings.NewReader(prefix), &filler{n: body},
				strings.NewReader(suffix), strings.NewReader(tt.after))
			total := int64(len(tt.before)) + int64(len(prefix)) + body + int64(len(suffix)) + int64(len(tt.after))
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			s, err := Read(r, tt.h)
			runtime.ReadMemStats(&m1)
			if err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, s, total)
			if len(s.Messages) != tt.wantMsgs || s.Skipped != tt.wantSkip || s.SkipReasons[SkipLongLine] != tt.wantSkip || s.Torn != tt.wantTorn {
				t.Fatalf("%d messages, skipped %d %v, torn %v; want %d, %d, %v", len(s.Messages), s.Skipped, s.SkipReasons, s.Torn, tt.wantMsgs, tt.wantSkip, tt.wantTorn)
			}
			wantEnd := total
			if tt.wantTorn {
				wantEnd = int64(len(tt.before))
			}
			if s.End != wantEnd {
				t.Fatalf("End %d, want %d", s.End, wantEnd)
			}
			if tt.after != "" {
				if last := s.Messages[len(s.Messages)-1]; last.Offset != total-int64(len(tt.after)) {
					t.Fatalf("the line after the long one is at %d, want %d", last.Offset, total-int64(len(tt.after)))
				}
			}
			if tt.wantLongIn && !slices.ContainsFunc(s.Messages, func(m Message) bool { return int64(len(m.Text)) == body }) {
				t.Fatalf("the line of exactly MaxLine bytes lost its message")
			}
			// assembling a line up to MaxLine allocates ~86 MB in all (the buffer grows by
			// appending); reading past the rest must not allocate more, however long it is
			if alloc := m1.TotalAlloc - m0.TotalAlloc; tt.wantSkip > 0 && alloc > 6*MaxLine {
				t.Fatalf("reading past a %d MB line allocated %d MB", tt.size>>20, alloc>>20)
			}
		})
	}
}
