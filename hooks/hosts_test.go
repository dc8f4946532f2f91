package hooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
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
