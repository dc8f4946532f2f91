package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostFixtures: what each reader makes of its host's fixture, message by message.
func TestHostFixtures(t *testing.T) {
	shellFail := "Command: npm test -- checkout\nDirectory: (root)\nOutput: npm ERR! This project uses pnpm workspaces; npm cannot resolve workspace:* dependencies\nError: (none)\nExit Code: 1\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 48213"
	shellOK := "Command: pnpm --filter @webshop/cart test\nDirectory: (root)\nOutput: Tests: 42 passed, 42 total\nError: (none)\nExit Code: 0\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 48290"
	tests := []struct {
		file    string
		harness Harness
		id, cwd string
		want    []msg
	}{
		{"gemini-session.jsonl", HarnessGemini, "7c1e4a90-2b3d-4f5e-8a6b-9c0d1e2f3a4b", "", []msg{
			{Role: RoleSystem, Kind: KindText, Text: "<hook_context>Project learnings:\n- none yet</hook_context>"},
			{Role: RoleUser, Kind: KindText, Text: "run the checkout tests"},
			// g-1 was written twice: its second version (with the result) wins, in its place
			{Role: RoleAssistant, Kind: KindThinking, Text: "Running tests\nThe repo uses npm scripts."},
			{Role: RoleAssistant, Kind: KindText, Text: "I'll run the checkout tests."},
			{Role: RoleAssistant, Kind: KindToolCall, Tool: "run_shell_command", Input: "npm test -- checkout", Call: "run_shell_command-1"},
			{Role: RoleTool, Kind: KindToolResult, Tool: "run_shell_command", Call: "run_shell_command-1", Text: shellFail, Err: true, Exit: "1"},
			{Role: RoleUser, Kind: KindText, Text: "no, use pnpm instead of npm"},
			{Role: RoleAssistant, Kind: KindToolCall, Tool: "run_shell_command", Input: "pnpm --filter @webshop/cart test", Call: "run_shell_command-2"},
			{Role: RoleTool, Kind: KindToolResult, Tool: "run_shell_command", Call: "run_shell_command-2", Text: shellOK, Exit: "0"},
			// g-3 was rewound
			{Role: RoleAssistant, Kind: KindText, Text: "All 42 cart tests pass with pnpm."},
			{Role: RoleSystem, Kind: KindText, Text: "Checkpoint saved."},
			{Role: RoleAssistant, Kind: KindText, Text: "Reading the config."},
			{Role: RoleAssistant, Kind: KindToolCall, Tool: "read_file", Input: `{"absolute_path":"/home/dev/src/webshop/missing.json"}`, Call: "read_file-1"},
			{Role: RoleTool, Kind: KindToolResult, Tool: "read_file", Call: "read_file-1", Text: "File not found: /home/dev/src/webshop/missing.json", Err: true},
		}},
		{"gemini-session.json", HarnessGemini, "0a1b2c3d-4e5f-4061-8273-94a5b6c7d8e9", "", []msg{
			{Role: RoleUser, Kind: KindText, Text: "why does make lint fail?"},
			{Role: RoleAssistant, Kind: KindText, Text: "Running the linter."},
			{Role: RoleAssistant, Kind: KindToolCall, Tool: "run_shell_command", Input: "make lint", Call: "c1"},
			{Role: RoleTool, Kind: KindToolResult, Tool: "run_shell_command", Call: "c1", Text: "Command: make lint\nDirectory: (root)\nOutput: cmd/tool/main.go:14: Error return value is not checked (errcheck)\nError: (none)\nExit Code: 2\nSignal: (none)", Err: true, Exit: "2"},
			{Role: RoleUser, Kind: KindText, Text: "don't silence it with nolint, handle the error"},
			{Role: RoleAssistant, Kind: KindText, Text: "Handled the error; make lint is clean now."},
		}},
		{"copilot-events.jsonl", HarnessCopilot, "714bfd7c-a8ef-4bde-8bea-ec39ceec45e8", "/home/dev/src/api", []msg{
			{Role: RoleUser, Kind: KindText, Text: "run the migration tests"},
			{Role: RoleAssistant, Kind: KindText, Text: "Running the migration tests."},
			{Role: RoleAssistant, Kind: KindToolCall, Tool: "bash", Input: "npm run test:migrations", Call: "tooluse_1"},
			{Role: RoleTool, Kind: KindToolResult, Tool: "bash", Call: "tooluse_1", Text: "Command failed with exit code 1\nnpm ERR! workspace:* dependencies need pnpm", Err: true},
			{Role: RoleUser, Kind: KindText, Text: "no, use pnpm instead of npm"},
			{Role: RoleAssistant, Kind: KindToolCall, Tool: "bash", Input: "pnpm run test:migrations", Call: "tooluse_2"},
			{Role: RoleTool, Kind: KindToolResult, Tool: "bash", Call: "tooluse_2", Text: "12 migrations passed"},
			{Role: RoleAssistant, Kind: KindText, Text: "The migration tests pass with pnpm."},
		}},
		{"cursor-transcript.jsonl", HarnessCursor, "cursor-transcript", "", []msg{
			{Role: RoleUser, Kind: KindText, Text: "run the checkout tests"},
			{Role: RoleAssistant, Kind: KindText, Text: "I'll run the checkout tests."},
			{Role: RoleAssistant, Kind: KindToolCall, Tool: "Shell", Input: "npm test -- checkout"},
			{Role: RoleUser, Kind: KindText, Text: "no, use pnpm instead of npm"},
			{Role: RoleAssistant, Kind: KindToolCall, Tool: "Shell", Input: "pnpm --filter @webshop/cart test"},
			{Role: RoleAssistant, Kind: KindToolCall, Tool: "Grep", Input: `{"pattern":"workspace:","path":"package.json"}`},
			{Role: RoleAssistant, Kind: KindText, Text: "All 42 cart tests pass with pnpm."},
			{Role: RoleSystem, Kind: KindText, Text: "The turn ended with an error. Connection lost"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join(fixtureDir, tt.file)
			// detection from the content alone, then the read
			s, err := ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if s.Harness != tt.harness || s.ID != tt.id || s.CWD != tt.cwd {
				t.Errorf("harness %q id %q cwd %q; want %q %q %q", s.Harness, s.ID, s.CWD, tt.harness, tt.id, tt.cwd)
			}
			if s.Skipped != 0 {
				t.Errorf("skipped %d lines: %v", s.Skipped, s.SkipReasons)
			}
			fi, _ := os.Stat(path)
			checkInvariants(t, s, fi.Size())
			sameMsgs(t, s.Messages, tt.want)
		})
	}
}

// TestGeminiResume: a read that resumes at an offset takes the messages written or
// rewritten after it, and a rewind to a message before it drops what it holds.
func TestGeminiResume(t *testing.T) {
	data := string(fixture(t, "gemini-session.jsonl"))
	// resume just before g-1's second version: g-1 again (it changed), and what follows
	off := strings.Index(data, `{"$set":{"lastUpdated"`)
	path := filepath.Join(t.TempDir(), "session-2026-08-21T10-04-7c1e4a90.jsonl")
	os.WriteFile(path, []byte(data), 0o644)
	s, err := ReadFileFrom(path, int64(off), HarnessGemini)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Messages) == 0 || s.Messages[0].Kind != KindThinking || s.Messages[0].Offset <= int64(off) {
		t.Fatalf("first message after the offset: %+v", s.Messages[0])
	}
	for _, m := range s.Messages {
		if m.Text == "run the checkout tests" || m.Text == "Wrong answer, discard this." {
			t.Fatalf("message %q came back", m.Text)
		}
	}
	// a rewind to a message before the offset: everything read after it is gone
	rewound := data + `{"$rewindTo":"u-2"}` + "\n"
	os.WriteFile(path, []byte(rewound), 0o644)
	s, err = ReadFileFrom(path, int64(off), HarnessGemini)
	if err != nil || len(s.Messages) != 0 {
		t.Fatalf("after a rewind past the offset: %d messages, %v", len(s.Messages), err)
	}
	// the whole file: u-1 is left
	s, _ = ReadFileFrom(path, 0, HarnessGemini)
	if len(s.Messages) != 1 || s.Messages[0].Role != RoleSystem {
		t.Fatalf("whole file after rewind to u-2: %v", view(s.Messages))
	}
}

// TestGeminiJSONResume: the format before v0.39 is one JSON document; a read from an
// earlier size takes only the messages after it, and a half-written file yields nothing.
func TestGeminiJSONResume(t *testing.T) {
	data := fixture(t, "gemini-session.json")
	dir := t.TempDir()
	path := filepath.Join(dir, "session-2026-03-02T09-00-0a1b2c3d.json")
	os.WriteFile(path, data, 0o644)
	off := int64(strings.LastIndex(string(data[:strings.Index(string(data), `"id": "m3"`)]), "{"))
	s, err := ReadFileFrom(path, off, "")
	if err != nil {
		t.Fatal(err)
	}
	if s.Harness != HarnessGemini || len(s.Messages) != 2 || s.End != int64(len(data)) {
		t.Fatalf("from %d: %s, %d messages, End %d", off, s.Harness, len(s.Messages), s.End)
	}
	os.WriteFile(path, data[:len(data)/2], 0o644)
	s, err = ReadFileFrom(path, 0, HarnessGemini)
	if err != nil || len(s.Messages) != 0 || !s.Torn || s.End != 0 {
		t.Fatalf("half a file: %d messages, torn %v, End %d, %v", len(s.Messages), s.Torn, s.End, err)
	}
}

// TestGeminiShellExit: both readings of a failed shell command are failures: the call's
// status error, and a successful call whose output says a non-zero exit code.
func TestGeminiShellExit(t *testing.T) {
	for _, tt := range []struct {
		name, status, output string
		err                  bool
		exit                 string
	}{
		{"exit code in the output", "success", "Output: boom\nExit Code: 127", true, "127"},
		{"status error", "error", "boom", true, ""},
		{"cancelled", "cancelled", "", true, ""},
		{"exit 0", "success", "Output: ok\nExit Code: 0", false, "0"},
		{"plain success", "success", "ok", false, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			line := `{"id":"g","type":"gemini","content":"","toolCalls":[{"id":"c","name":"run_shell_command","args":{"command":"x"},"status":"` + tt.status + `","result":[{"functionResponse":{"response":{"output":` + quote(tt.output) + `}}}]}]}`
			s := readString(t, HarnessGemini, lines(line))
			if len(s.Messages) != 2 {
				t.Fatalf("messages: %v", view(s.Messages))
			}
			r := view(s.Messages)[1]
			if r.Err != tt.err || r.Exit != tt.exit {
				t.Fatalf("result %v; want err %v exit %q", r, tt.err, tt.exit)
			}
		})
	}
}

func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}

// TestHostPaths: the hosts' file locations name them, and the session's directory is found
// where the host keeps it.
func TestHostPaths(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, "src", "web-shop")
	os.MkdirAll(proj, 0o755)
	// Gemini: ~/.gemini/tmp/<slug>/.project_root
	chats := filepath.Join(home, ".gemini", "tmp", "web-shop", "chats")
	os.MkdirAll(chats, 0o755)
	os.WriteFile(filepath.Join(chats, "..", ".project_root"), []byte(proj+"\n"), 0o644)
	g := filepath.Join(chats, "session-2026-08-21T10-04-7c1e4a90.jsonl")
	os.WriteFile(g, fixture(t, "gemini-session.jsonl"), 0o644)
	if s, err := ReadFile(g); err != nil || s.CWD != proj {
		t.Fatalf("gemini cwd %q, %v", s.CWD, err)
	}
	// …or ~/.gemini/projects.json
	os.Remove(filepath.Join(chats, "..", ".project_root"))
	os.WriteFile(filepath.Join(home, ".gemini", "projects.json"), []byte(`{"projects":{"`+proj+`":"web-shop"}}`), 0o644)
	if s, err := ReadFile(g); err != nil || s.CWD != proj {
		t.Fatalf("gemini cwd from projects.json %q, %v", s.CWD, err)
	}
	// Copilot: the session id is the folder's name
	cdir := filepath.Join(home, ".copilot", "session-state", "714bfd7c-a8ef-4bde-8bea-ec39ceec45e8")
	os.MkdirAll(cdir, 0o755)
	data := fixture(t, "copilot-events.jsonl")
	tail := data[strings.Index(string(data), "\n")+1:] // no session.start
	os.WriteFile(filepath.Join(cdir, "events.jsonl"), tail, 0o644)
	if s, err := ReadFile(filepath.Join(cdir, "events.jsonl")); err != nil || s.ID != "714bfd7c-a8ef-4bde-8bea-ec39ceec45e8" || s.Harness != HarnessCopilot {
		t.Fatalf("copilot id %q harness %q, %v", s.ID, s.Harness, err)
	}
	// Cursor: the workspace folder's encoded name, decoded against what exists
	enc := strings.ReplaceAll(strings.TrimPrefix(proj, "/"), "/", "-")
	tdir := filepath.Join(home, ".cursor", "projects", enc, "agent-transcripts", "9f3e")
	os.MkdirAll(tdir, 0o755)
	os.WriteFile(filepath.Join(tdir, "9f3e.jsonl"), fixture(t, "cursor-transcript.jsonl"), 0o644)
	if s, err := ReadFile(filepath.Join(tdir, "9f3e.jsonl")); err != nil || s.CWD != proj || s.ID != "9f3e" {
		t.Fatalf("cursor cwd %q id %q, %v", s.CWD, s.ID, err)
	}
}

// TestDetectHosts: a line of each new host is told apart from Claude Code's and Codex's.
func TestDetectHosts(t *testing.T) {
	for _, tt := range []struct {
		line string
		want Harness
	}{
		{`{"sessionId":"x","projectHash":"y","startTime":"2026-01-01T00:00:00Z"}`, HarnessGemini},
		{`{"id":"u","timestamp":"2026-01-01T00:00:00Z","type":"user","content":[{"text":"hi"}]}`, HarnessGemini},
		{`{"id":"g","timestamp":"2026-01-01T00:00:00Z","type":"gemini","content":"hi"}`, HarnessGemini},
		{`{"$rewindTo":"g"}`, HarnessGemini},
		{`{"type":"user.message","data":{"content":"hi"},"id":"e","timestamp":"2026-01-01T00:00:00Z","parentId":null}`, HarnessCopilot},
		{`{"role":"user","message":{"content":[{"type":"text","text":"hi"}]}}`, HarnessCursor},
		{`{"type":"turn_ended","status":"success"}`, HarnessCursor},
		{`{"type":"user","uuid":"u","sessionId":"s","message":{"role":"user","content":"hi"}}`, HarnessClaude},
		{`{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}`, HarnessCodex},
		{`{"timestamp":"2026-01-01T00:00:00Z","type":"event_msg","payload":{"type":"user_message"}}`, HarnessCodex},
	} {
		if got, ok := Detect([]byte(tt.line)); !ok || got != tt.want {
			t.Errorf("Detect(%s) = %q, %v; want %q", tt.line, got, ok, tt.want)
		}
	}
}

func FuzzReadGemini(f *testing.F) {
	seed(f, fixtureDir+"/gemini-*")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, HarnessGemini, data) })
}

func FuzzReadCopilot(f *testing.F) {
	seed(f, fixtureDir+"/copilot-*.jsonl")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, HarnessCopilot, data) })
}

func FuzzReadCursor(f *testing.F) {
	seed(f, fixtureDir+"/cursor-*.jsonl")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, HarnessCursor, data) })
}

// FuzzReadGeminiJSON: the single-document format, whatever the file holds.
func FuzzReadGeminiJSON(f *testing.F) {
	seed(f, fixtureDir+"/gemini-session.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "session-x.json")
		os.WriteFile(path, data, 0o644)
		s, err := ReadFileFrom(path, 0, HarnessGemini)
		if err != nil {
			t.Fatal(err)
		}
		checkInvariants(t, s, int64(len(data)))
	})
}

func FuzzReadOpencode(f *testing.F) {
	f.Add([]byte(`{"type":"opencode.session","id":"ses_1","parent":"","directory":"/w","title":"t","time":1}` + "\n" +
		`{"type":"opencode.part","session":"ses_1","message":"msg_1","id":"prt_1","role":"assistant","model":"m","time":2,"part":{"type":"tool","callID":"c","tool":"bash","state":{"status":"completed","input":{"command":"x"},"output":"o","metadata":{"exit":1}}}}` + "\n"))
	f.Add([]byte(`{"type":"opencode.part","role":"user","time":-1,"part":{"type":"text","text":"hi","synthetic":"yes"}}`))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, HarnessOpencode, data) })
}
