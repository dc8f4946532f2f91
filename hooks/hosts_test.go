package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reflect-memory/reflect/internal/testenv"
)

// TestDecodeHosts: each host's documented payloads (more-hosts.md §E.4, §F.4, §H.4) map onto
// reflect's events and fields.
func TestDecodeHosts(t *testing.T) {
	copilotHome := t.TempDir()
	t.Setenv("COPILOT_HOME", copilotHome)
	events := filepath.Join(copilotHome, "session-state", "714bfd7c-a8ef-4bde-8bea-ec39ceec45e8", "events.jsonl")
	os.MkdirAll(filepath.Dir(events), 0o755)
	os.WriteFile(events, []byte("{}\n"), 0o644)
	tests := []struct {
		name, host, arg, in string
		want                Payload
		failed              bool
	}{
		{"gemini start", HostGemini, "", `{"session_id":"3f0c","transcript_path":"/t.jsonl","cwd":"/home/u/myrepo","hook_event_name":"SessionStart","timestamp":"2026-08-21T10:04:12.345Z","source":"startup"}`,
			Payload{Event: "SessionStart", HostEvent: "SessionStart", Host: HostGemini, SessionID: "3f0c", TranscriptPath: "/t.jsonl", CWD: "/home/u/myrepo", Source: "startup"}, false},
		{"gemini prompt", HostGemini, "", `{"session_id":"3f0c","transcript_path":"","cwd":"/r","hook_event_name":"BeforeAgent","timestamp":"x","prompt":"fix the flaky test"}`,
			Payload{Event: "UserPromptSubmit", HostEvent: "BeforeAgent", Host: HostGemini, SessionID: "3f0c", CWD: "/r", Prompt: "fix the flaky test"}, false},
		{"gemini turn end", HostGemini, "", `{"session_id":"3f0c","transcript_path":"/t.jsonl","cwd":"/r","hook_event_name":"AfterAgent","prompt":"p","prompt_response":"I changed it","stop_hook_active":false}`,
			Payload{Event: "Stop", HostEvent: "AfterAgent", Host: HostGemini, SessionID: "3f0c", TranscriptPath: "/t.jsonl", CWD: "/r", Prompt: "p", LastAssistantMessage: "I changed it"}, false},
		{"gemini failed shell", HostGemini, "", `{"session_id":"s","cwd":"/r","hook_event_name":"AfterTool","tool_name":"run_shell_command","tool_input":{"command":"npm test"},"tool_response":{"llmContent":"Command: npm test\nOutput: boom\nExit Code: 1","returnDisplay":"boom"}}`,
			Payload{Event: "PostToolUse", HostEvent: "AfterTool", Host: HostGemini, SessionID: "s", CWD: "/r", ToolName: "run_shell_command"}, true},
		{"gemini tool error", HostGemini, "", `{"session_id":"s","cwd":"/r","hook_event_name":"AfterTool","tool_name":"read_file","tool_response":{"llmContent":"","error":"File not found"}}`,
			Payload{Event: "PostToolUse", HostEvent: "AfterTool", Host: HostGemini, SessionID: "s", CWD: "/r", ToolName: "read_file"}, true},
		{"gemini shell ok", HostGemini, "", `{"session_id":"s","cwd":"/r","hook_event_name":"AfterTool","tool_name":"run_shell_command","tool_response":{"llmContent":"Output: ok\nExit Code: 0"}}`,
			Payload{Event: "PostToolUse", HostEvent: "AfterTool", Host: HostGemini, SessionID: "s", CWD: "/r", ToolName: "run_shell_command"}, false},
		{"gemini compress", HostGemini, "", `{"session_id":"s","transcript_path":"/t.jsonl","cwd":"/r","hook_event_name":"PreCompress","trigger":"auto"}`,
			Payload{Event: "PreCompact", HostEvent: "PreCompress", Host: HostGemini, SessionID: "s", TranscriptPath: "/t.jsonl", CWD: "/r", Trigger: "auto"}, false},
		{"gemini notification", HostGemini, "", `{"session_id":"s","cwd":"/r","hook_event_name":"Notification","notification_type":"ToolPermission"}`,
			Payload{Event: "-Notification", HostEvent: "Notification", Host: HostGemini, SessionID: "s", CWD: "/r"}, false},
		{"copilot start, camelCase", HostCopilot, "sessionStart", `{"sessionId":"714bfd7c-a8ef-4bde-8bea-ec39ceec45e8","timestamp":1774281852263,"cwd":"/repo","source":"new","initialPrompt":"hi"}`,
			Payload{Event: "SessionStart", HostEvent: "sessionStart", Host: HostCopilot, SessionID: "714bfd7c-a8ef-4bde-8bea-ec39ceec45e8", CWD: "/repo", Source: "new", TranscriptPath: events}, false},
		{"copilot start, PascalCase", HostCopilot, "", `{"hook_event_name":"SessionStart","session_id":"abc","timestamp":"2026-03-23T15:04:12.263Z","cwd":"/repo","source":"new"}`,
			Payload{Event: "SessionStart", HostEvent: "SessionStart", Host: HostCopilot, SessionID: "abc", CWD: "/repo", Source: "new"}, false},
		{"copilot tool, args object", HostCopilot, "postToolUse", `{"sessionId":"s","timestamp":1,"cwd":"/repo","toolName":"bash","toolArgs":{"command":"go test ./..."},"toolResult":{"resultType":"failure","textResultForLlm":"FAIL pkg"}}`,
			Payload{Event: "PostToolUse", HostEvent: "postToolUse", Host: HostCopilot, SessionID: "s", CWD: "/repo", ToolName: "bash", ToolInput: json.RawMessage(`{"command":"go test ./..."}`)}, true},
		{"copilot tool, args string", HostCopilot, "postToolUse", `{"sessionId":"s","timestamp":1,"cwd":"/repo","toolName":"bash","toolArgs":"{\"command\":\"ls\"}","toolResult":{"resultType":"success","textResultForLlm":"a"}}`,
			Payload{Event: "PostToolUse", HostEvent: "postToolUse", Host: HostCopilot, SessionID: "s", CWD: "/repo", ToolName: "bash", ToolInput: json.RawMessage(`{"command":"ls"}`)}, false},
		{"copilot tool, PascalCase", HostCopilot, "", `{"hook_event_name":"PostToolUse","session_id":"s","timestamp":"x","cwd":"/repo","tool_name":"Bash","tool_input":{"command":"x"},"tool_result":{"result_type":"failure","text_result_for_llm":"no"}}`,
			Payload{Event: "PostToolUse", HostEvent: "PostToolUse", Host: HostCopilot, SessionID: "s", CWD: "/repo", ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"x"}`)}, true},
		{"copilot stop", HostCopilot, "agentStop", `{"sessionId":"s","timestamp":1,"cwd":"/repo","transcriptPath":"/t/events.jsonl","stopReason":"end_turn","stop_hook_active":false}`,
			Payload{Event: "Stop", HostEvent: "agentStop", Host: HostCopilot, SessionID: "s", CWD: "/repo", TranscriptPath: "/t/events.jsonl"}, false},
		{"copilot end, a hostile id names no path", HostCopilot, "sessionEnd", `{"sessionId":"../../etc","timestamp":1,"cwd":"/repo","reason":"user_exit"}`,
			Payload{Event: "SessionEnd", HostEvent: "sessionEnd", Host: HostCopilot, SessionID: "../../etc", CWD: "/repo", Reason: "user_exit"}, false},
		{"cursor start", HostCursor, "", `{"conversation_id":"c-9f","generation_id":"g","model":"m","hook_event_name":"sessionStart","cursor_version":"3.20.17","workspace_roots":["/home/u/myrepo"],"user_email":null,"transcript_path":"/t.jsonl","session_id":"c-9f","is_background_agent":false,"composer_mode":"agent"}`,
			Payload{Event: "SessionStart", HostEvent: "sessionStart", Host: HostCursor, SessionID: "c-9f", CWD: "/home/u/myrepo", TranscriptPath: "/t.jsonl", Model: "m"}, false},
		{"cursor prompt", HostCursor, "", `{"conversation_id":"c","hook_event_name":"beforeSubmitPrompt","workspace_roots":["/w"],"prompt":"fix it","attachments":[]}`,
			Payload{Event: "UserPromptSubmit", HostEvent: "beforeSubmitPrompt", Host: HostCursor, SessionID: "c", CWD: "/w", Prompt: "fix it"}, false},
		{"cursor tool output string", HostCursor, "", `{"conversation_id":"c","hook_event_name":"postToolUse","workspace_roots":["/w"],"tool_name":"Shell","tool_input":{"command":"npm test"},"tool_output":"{\"exitCode\":1,\"stderr\":\"npm ERR!\"}","cwd":"/w","duration":15}`,
			Payload{Event: "PostToolUse", HostEvent: "postToolUse", Host: HostCursor, SessionID: "c", CWD: "/w", ToolName: "Shell", ToolInput: json.RawMessage(`{"command":"npm test"}`), ToolResponse: json.RawMessage(`{"exitCode":1,"stderr":"npm ERR!"}`)}, true},
		{"cursor via a Claude Code entry", HostClaude, "", `{"conversation_id":"c","hook_event_name":"stop","cursor_version":"3.20.17","workspace_roots":["/w"],"status":"completed","loop_count":0}`,
			Payload{Event: "Stop", HostEvent: "stop", Host: HostCursor, SessionID: "c", CWD: "/w"}, false},
		{"copilot via a Claude Code entry", HostClaude, "", `{"hook_event_name":"SessionStart","session_id":"abc","timestamp":"2026-03-23T15:04:12.263Z","cwd":"/repo","source":"new"}`,
			Payload{Event: "SessionStart", HostEvent: "SessionStart", Host: HostCopilot, SessionID: "abc", CWD: "/repo", Source: "new"}, false},
		{"copilot Stop via a Claude Code entry", HostClaude, "", `{"hook_event_name":"Stop","session_id":"abc","timestamp":"2026-03-23T15:04:12.263Z","cwd":"/repo","transcript_path":"/t/events.jsonl","stop_reason":"end_turn","stop_hook_active":false}`,
			Payload{Event: "Stop", HostEvent: "Stop", Host: HostCopilot, SessionID: "abc", CWD: "/repo", TranscriptPath: "/t/events.jsonl"}, false},
		{"claude stays claude", HostClaude, "", `{"session_id":"s","transcript_path":"/t.jsonl","cwd":"/p","permission_mode":"default","hook_event_name":"SessionStart","source":"startup"}`,
			Payload{Event: "SessionStart", SessionID: "s", TranscriptPath: "/t.jsonl", CWD: "/p", Source: "startup"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := decodeFor(tt.host, tt.arg, []byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			failed := p.failed
			if !p.judged {
				failed, _ = toolFailed(p.ToolResponse)
			}
			if failed != tt.failed {
				t.Errorf("failed = %v, want %v", failed, tt.failed)
			}
			p.judged, p.failed, p.failure, p.Error = false, false, "", ""
			if tt.want.ToolResponse == nil {
				p.ToolResponse = nil
			}
			if tt.want.ToolInput == nil {
				p.ToolInput = nil
			}
			got, _ := json.Marshal(p)
			want, _ := json.Marshal(tt.want)
			if string(got) != string(want) || p.Host != tt.want.Host || p.HostEvent != tt.want.HostEvent {
				t.Errorf("got  %s host %q event %q\nwant %s host %q event %q", got, p.Host, p.HostEvent, want, tt.want.Host, tt.want.HostEvent)
			}
		})
	}
}

// TestContextOutput: the context goes out in the shape each host reads, and not at all where
// the host drops it.
func TestContextOutput(t *testing.T) {
	for _, tt := range []struct {
		host, event, hostEvent, want string
	}{
		{HostClaude, "SessionStart", "", `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"X"}}`},
		{HostCodex, "UserPromptSubmit", "", `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"X"}}`},
		{HostGemini, "UserPromptSubmit", "BeforeAgent", `{"hookSpecificOutput":{"hookEventName":"BeforeAgent","additionalContext":"X"}}`},
		{HostGemini, "SessionStart", "SessionStart", `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"X"}}`},
		{HostCopilot, "SessionStart", "sessionStart", `{"additionalContext":"X"}`},
		{HostCopilot, "SessionStart", "SessionStart", `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"X"},"additionalContext":"X"}`},
		{HostCopilot, "UserPromptSubmit", "userPromptSubmitted", `null`},
		{HostCursor, "SessionStart", "sessionStart", `{"additional_context":"X"}`},
		{HostCursor, "UserPromptSubmit", "beforeSubmitPrompt", `{"additional_context":"X"}`},
	} {
		e := &event{Payload: Payload{Host: tt.host, Event: tt.event, HostEvent: tt.hostEvent}}
		got, _ := json.Marshal(e.contextOutput("X"))
		if string(got) != tt.want {
			t.Errorf("%s %s: %s, want %s", tt.host, tt.event, got, tt.want)
		}
	}
}

// FuzzDecodeHosts: whatever a host sends, its decoding does not panic, and what it decodes
// names an event (reflect's, or a no-op marked with "-").
func FuzzDecodeHosts(f *testing.F) {
	for _, s := range []string{
		`{"session_id":"s","hook_event_name":"AfterTool","tool_response":{"llmContent":"Exit Code: 1"}}`,
		`{"sessionId":"s","timestamp":1,"toolArgs":"{\"command\":1}","toolResult":{"resultType":"failure"}}`,
		`{"conversation_id":"c","hook_event_name":"postToolUse","workspace_roots":[1,"/w"],"tool_output":"{\"exitCode\":2}"}`,
		`{"cursor_version":"3","hook_event_name":"stop"}`, `{"hook_event_name":"SessionStart","timestamp":"x"}`, `null`, `{`,
	} {
		for _, host := range []string{HostClaude, HostGemini, HostCopilot, HostCursor, HostOpencode} {
			f.Add(host, "sessionStart", []byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, host, arg string, data []byte) {
		p, err := decodeFor(host, arg, data)
		if err == nil && p.Event == "" {
			t.Fatal("decoded a payload without an event")
		}
		toolFailed(p.ToolResponse)
		inputText(p.ToolInput)
	})
}

// TestHostCaptures: a compaction or turn end of each host commits its session from the
// host's own transcript, in both formats where a host has two (Gemini CLI's JSON lines and
// its single JSON file; Copilot CLI's camelCase and PascalCase dialects).
func TestHostCaptures(t *testing.T) {
	testenv.SetHome(t)
	ctx := context.Background()
	r := newMemory(t)
	dir := t.TempDir()
	copyFixture := func(name string) string {
		data, err := os.ReadFile(filepath.Join("..", "fixtures", "transcripts", name))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		os.WriteFile(p, data, 0o644)
		return p
	}
	for _, tt := range []struct {
		name, host, arg string
		payload         map[string]any
		subject, digest string
	}{
		{"gemini jsonl", HostGemini, "", map[string]any{"session_id": "7c1e4a90-2b3d", "transcript_path": copyFixture("gemini-session.jsonl"), "cwd": dir, "hook_event_name": "PreCompress", "trigger": "auto"},
			"capture(precompact): gemini session 7c1e4a90", "npm test -- checkout"},
		{"gemini json", HostGemini, "", map[string]any{"session_id": "0a1b2c3d-4e5f", "transcript_path": copyFixture("gemini-session.json"), "cwd": dir, "hook_event_name": "AfterAgent", "prompt_response": "done"},
			"capture(stop): gemini session 0a1b2c3d", "make lint"},
		{"copilot camelCase", HostCopilot, "agentStop", map[string]any{"sessionId": "714bfd7c-a8ef", "timestamp": 1, "cwd": dir, "transcriptPath": copyFixture("copilot-events.jsonl"), "stopReason": "end_turn"},
			"capture(stop): copilot session 714bfd7c", "npm run test:migrations"},
		{"copilot PascalCase", HostCopilot, "", map[string]any{"hook_event_name": "PreCompact", "session_id": "99aa", "timestamp": "2026-03-23T15:04:12.263Z", "cwd": dir, "transcript_path": filepath.Join(dir, "copilot-events.jsonl"), "trigger": "manual"},
			"capture(precompact): copilot session 99aa", "npm run test:migrations"},
		{"cursor", HostCursor, "", map[string]any{"conversation_id": "c-9f3e", "hook_event_name": "stop", "workspace_roots": []string{dir}, "transcript_path": copyFixture("cursor-transcript.jsonl"), "status": "completed", "loop_count": 0},
			"capture(stop): cursor session c-9f3e", "no, use pnpm instead of npm"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := json.Marshal(tt.payload)
			var out bytes.Buffer
			Run(ctx, Options{Harness: tt.host, Event: tt.arg, Home: r.Root(), Stdin: bytes.NewReader(p), Stdout: &out, Stderr: io.Discard})
			if out.Len() != 0 {
				t.Errorf("a capture printed %q", out.String())
			}
			msg, err := exec.Command("git", "-C", r.Root(), "log", "-1", "--format=%s").Output()
			if err != nil || !strings.HasPrefix(string(msg), tt.subject) {
				t.Fatalf("last commit %q (%v), want %q…", msg, err, tt.subject)
			}
			if grep, _ := exec.Command("git", "-C", r.Root(), "grep", "-l", "-F", tt.digest, "HEAD", "--", "queue/").Output(); len(grep) == 0 {
				t.Fatalf("the digest does not hold %q", tt.digest)
			}
		})
	}
}

// A session id reaches state file names, learnings' source and commit messages: whatever a
// host sends, it holds no control character (a NUL made git fsck report every commit that
// named it) and is bounded.
func TestSessionIDsAreClean(t *testing.T) {
	long := strings.Repeat("é", 150)
	for _, host := range []string{HostClaude, HostCodex, HostGemini, HostCopilot, HostCursor, HostOpencode} {
		for in, want := range map[string]string{`a\u0000b/../../etc`: "ab/../../etc", "s\\n1\\t\\u001b[2J": "s1[2J", long: strings.Repeat("é", 100)} {
			payload := `{"hook_event_name":"UserPromptSubmit","session_id":"` + in + `","conversation_id":"` + in + `","sessionId":"` + in + `","prompt":"p","cwd":"/r"}`
			p, err := decodeFor(host, "UserPromptSubmit", []byte(payload))
			if err != nil {
				t.Fatalf("%s: %v", host, err)
			}
			if p.SessionID != want {
				t.Errorf("%s: session id %q, want %q", host, p.SessionID, want)
			}
		}
	}
}
