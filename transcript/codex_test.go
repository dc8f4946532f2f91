package transcript

import (
	"strings"
	"testing"
)

// Codex lines in the shapes of §D: ev() wraps a payload in the envelope.
func ev(typ, payload string) string {
	return `{"timestamp":"2026-05-11T08:27:17.490Z","type":"` + typ + `","payload":` + payload + `}`
}

func item(payload string) string  { return ev("response_item", payload) }
func event(payload string) string { return ev("event_msg", payload) }

const (
	metaLine = `{"timestamp":"2026-05-11T08:27:17.490Z","type":"session_meta","payload":{"id":"019e1625-789d-76c0-80ab-3724b5ddb799","timestamp":"2026-05-11T08:26:55.042Z","cwd":"/w/api","originator":"codex-tui","cli_version":"0.125.0","source":"cli","model_provider":"openai","base_instructions":{"text":"You are Codex."},"git":{"commit_hash":"c8c252ac","branch":"feat/x","repository_url":"git@github.com:acme/api.git"}}}`
	execCall = `{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"npm test\",\"workdir\":\"/w/api\",\"yield_time_ms\":1000}","call_id":"call_1"}`
)

func TestCodexRecords(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []msg
	}{{
		name: "messages by role; injected user context is system",
		in: lines(
			item(`{"type":"message","role":"developer","content":[{"type":"input_text","text":"<permissions instructions>\nsandbox</permissions instructions>"},{"type":"input_text","text":"<collaboration_mode>Default</collaboration_mode>"}]}`),
			item(`{"type":"message","role":"user","content":[{"type":"input_text","text":"# AGENTS.md instructions for /w/api\n\n<INSTRUCTIONS>\nbe brief\n</INSTRUCTIONS>"},{"type":"input_text","text":"<environment_context>\n  <cwd>/w/api</cwd>\n</environment_context>"}]}`),
			item(`{"type":"message","role":"user","content":[{"type":"input_text","text":"show tools"},{"type":"input_image","image_url":"data:image/png;base64,iVBORw0KGgo="}]}`),
			item(`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Available tool groups: web, functions."}],"phase":"final_answer"}`),
			item(`{"type":"message","role":"user","content":[{"type":"input_text","text":"<turn_aborted>\nThe user interrupted the previous turn.\n</turn_aborted>"}]}`),
		),
		want: []msg{
			{Role: RoleSystem, Kind: KindText, Text: "<permissions instructions>\nsandbox</permissions instructions>\n<collaboration_mode>Default</collaboration_mode>"},
			{Role: RoleSystem, Kind: KindText, Text: "# AGENTS.md instructions for /w/api\n\n<INSTRUCTIONS>\nbe brief\n</INSTRUCTIONS>\n<environment_context>\n  <cwd>/w/api</cwd>\n</environment_context>"},
			{Role: RoleUser, Kind: KindText, Text: "show tools"},
			{Role: RoleAssistant, Kind: KindText, Text: "Available tool groups: web, functions."},
			{Role: RoleSystem, Kind: KindText, Text: "<turn_aborted>\nThe user interrupted the previous turn.\n</turn_aborted>"},
		},
	}, {
		name: "event messages repeat response items and are dropped, in either order",
		in: lines(
			item(`{"type":"message","role":"user","content":[{"type":"input_text","text":"show tools"}]}`),
			event(`{"type":"user_message","message":"show tools","images":[],"local_images":[],"text_elements":[]}`),
			event(`{"type":"agent_message","message":"Here they are.","phase":"final_answer","memory_citation":null}`),
			item(`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Here they are."}],"phase":"final_answer"}`),
			event(`{"type":"agent_reasoning","text":"**Listing tools**"}`),
		),
		want: []msg{
			{Role: RoleUser, Kind: KindText, Text: "show tools"},
			{Role: RoleAssistant, Kind: KindText, Text: "Here they are."},
		},
	}, {
		name: "a rollout without response item messages keeps the event messages",
		in: lines(
			event(`{"type":"user_message","message":"show tools","images":[]}`),
			item(execCall),
			event(`{"type":"agent_message","message":"Here they are."}`),
		),
		want: []msg{
			{Role: RoleUser, Kind: KindText, Text: "show tools"},
			{Role: RoleAssistant, Kind: KindToolCall, Tool: "exec_command", Input: "npm test", Call: "call_1"},
			{Role: RoleAssistant, Kind: KindText, Text: "Here they are."},
		},
	}, {
		// codex-rs protocol items.rs, build_hook_prompt_message: a Stop hook's reason sent
		// back as a user message of <hook_prompt> fragments, XML-escaped
		name: "a Stop hook's continuation prompt is hook feedback",
		in: lines(
			item(`{"type":"message","role":"user","content":[{"type":"input_text","text":"<hook_prompt hook_run_id=\"stop:0:1\">Run `+"`"+`make lint`+"`"+` before you finish: the tree has &lt;2&gt; unformatted files &amp; a vet warning.</hook_prompt>"}],"id":"msg_h1"}`),
			item(`{"type":"message","role":"user","content":[{"type":"input_text","text":"<hook_prompt hook_run_ids=\"[&quot;a&quot;,&quot;b&quot;]\">commit first</hook_prompt>"},{"type":"input_text","text":"<hook_prompt hook_run_id=\"c\">and push</hook_prompt>"}]}`),
			item(`{"type":"message","role":"user","content":[{"type":"input_text","text":"why does <hook_prompt> show up in the logs?"}]}`),
		),
		want: []msg{
			{Role: RoleSystem, Kind: KindHook, Tool: "Stop", Text: "Run `make lint` before you finish: the tree has <2> unformatted files & a vet warning."},
			{Role: RoleSystem, Kind: KindHook, Tool: "Stop", Text: "commit first\nand push"},
			{Role: RoleUser, Kind: KindText, Text: "why does <hook_prompt> show up in the logs?"},
		},
	}, {
		name: "reasoning: encrypted only is dropped, summary or content kept",
		in: lines(
			item(`{"type":"reasoning","summary":[],"content":null,"encrypted_content":"gAAAAABqAZLp"}`),
			item(`{"type":"reasoning","summary":[{"type":"summary_text","text":"**Plan**"},{"type":"summary_text","text":"Run tests."}],"content":null,"encrypted_content":"gAAAA"}`),
			item(`{"type":"reasoning","summary":[{"type":"summary_text","text":"short"}],"content":[{"type":"reasoning_text","text":"the raw reasoning"}]}`),
		),
		want: []msg{
			{Role: RoleAssistant, Kind: KindThinking, Text: "**Plan**\nRun tests."},
			{Role: RoleAssistant, Kind: KindThinking, Text: "the raw reasoning"},
		},
	}, {
		name: "tool inputs: shell commands for exec-style tools, compact JSON otherwise",
		in: lines(
			item(execCall),
			item(`{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"make lint\"],\"workdir\":\"/w\"}","call_id":"call_2"}`),
			item(`{"type":"function_call","name":"shell","arguments":"{\"command\":[\"rg\",\"-n\",\"foo bar\",\"src\"]}","call_id":"call_3"}`),
			item(`{"type":"function_call","name":"shell_command","arguments":"{\"command\":\"git status --short\",\"workdir\":\"/w\"}","call_id":"call_4"}`),
			item(`{"type":"function_call","name":"update_plan","arguments":"{\"plan\": [{\"step\": \"test\", \"status\": \"in_progress\"}]}","call_id":"call_5"}`),
			item(`{"type":"function_call","name":"js","namespace":"mcp__node_repl__","arguments":"{\"code\":\"1+1\"}","call_id":"call_6"}`),
			item(`{"type":"function_call","name":"weird","arguments":"not json","call_id":"call_7"}`),
		),
		want: []msg{
			{Role: RoleAssistant, Kind: KindToolCall, Tool: "exec_command", Input: "npm test", Call: "call_1"},
			{Role: RoleAssistant, Kind: KindToolCall, Tool: "shell", Input: "make lint", Call: "call_2"},
			{Role: RoleAssistant, Kind: KindToolCall, Tool: "shell", Input: "rg -n 'foo bar' src", Call: "call_3"},
			{Role: RoleAssistant, Kind: KindToolCall, Tool: "shell_command", Input: "git status --short", Call: "call_4"},
			{Role: RoleAssistant, Kind: KindToolCall, Tool: "update_plan", Input: `{"plan":[{"step":"test","status":"in_progress"}]}`, Call: "call_5"},
			{Role: RoleAssistant, Kind: KindToolCall, Tool: "mcp__node_repl__js", Input: `{"code":"1+1"}`, Call: "call_6"},
			{Role: RoleAssistant, Kind: KindToolCall, Tool: "weird", Input: "not json", Call: "call_7"},
		},
	}, {
		name: "outputs: exit codes from unified exec, shell_command and shell metadata",
		in: lines(
			item(execCall),
			item(`{"type":"function_call_output","call_id":"call_1","output":"Chunk ID: 853167\nWall time: 0.0000 seconds\nProcess exited with code 3\nOriginal token count: 4\nOutput:\nFAIL\n"}`),
			item(`{"type":"function_call_output","call_id":"call_2","output":"Exit code: 0\nWall time: 0.4 seconds\nOutput:\nclean"}`),
			item(`{"type":"function_call_output","call_id":"call_3","output":"{\"output\":\"boom\\n\",\"metadata\":{\"exit_code\":1,\"duration_seconds\":0.1}}"}`),
			item(`{"type":"function_call_output","call_id":"call_4","output":"Exit code: 1 is what the docs say\nnot a header"}`),
			item(`{"type":"function_call_output","call_id":"call_5","output":"write_stdin failed: stdin is closed for this session"}`),
		),
		want: []msg{
			{Role: RoleAssistant, Kind: KindToolCall, Tool: "exec_command", Input: "npm test", Call: "call_1"},
			{Role: RoleTool, Kind: KindToolResult, Tool: "exec_command", Call: "call_1", Err: true, Exit: exit(3), Text: "Chunk ID: 853167\nWall time: 0.0000 seconds\nProcess exited with code 3\nOriginal token count: 4\nOutput:\nFAIL\n"},
			{Role: RoleTool, Kind: KindToolResult, Call: "call_2", Exit: exit(0), Text: "Exit code: 0\nWall time: 0.4 seconds\nOutput:\nclean"},
			{Role: RoleTool, Kind: KindToolResult, Call: "call_3", Err: true, Exit: exit(1), Text: "boom\n"},
			{Role: RoleTool, Kind: KindToolResult, Call: "call_4", Text: "Exit code: 1 is what the docs say\nnot a header"},
			{Role: RoleTool, Kind: KindToolResult, Call: "call_5", Text: "write_stdin failed: stdin is closed for this session"},
		},
	}, {
		name: "outputs as content items and as a failed object",
		in: lines(
			item(`{"type":"function_call_output","call_id":"call_1","output":[{"type":"input_text","text":"page 1"},{"type":"input_image","image_url":"data:image/png;base64,AA=="},{"type":"input_text","text":"page 2"}]}`),
			item(`{"type":"function_call_output","call_id":"call_2","output":{"content":"err: tool timed out","success":false}}`),
			item(`{"type":"function_call_output","call_id":"call_3","output":{"content_items":[{"type":"input_text","text":"ok"}],"success":true}}`),
		),
		want: []msg{
			{Role: RoleTool, Kind: KindToolResult, Call: "call_1", Text: "page 1\npage 2"},
			{Role: RoleTool, Kind: KindToolResult, Call: "call_2", Err: true, Text: "err: tool timed out"},
			{Role: RoleTool, Kind: KindToolResult, Call: "call_3", Text: "ok"},
		},
	}, {
		name: "exec_command_end marks its result, before or after it",
		in: lines(
			item(execCall),
			item(`{"type":"function_call_output","call_id":"call_1","output":"Chunk ID: a21e41\nWall time: 1.0037 seconds\nProcess running with session ID 48230\nOriginal token count: 0\nOutput:\n"}`),
			event(`{"type":"exec_command_end","call_id":"call_1","process_id":"48230","turn_id":"t1","command":["/bin/zsh","-lc","npm test"],"cwd":"/w/api","parsed_cmd":[],"source":"unified_exec_startup","stdout":"","stderr":"","aggregated_output":"FAIL","exit_code":1,"duration":{"secs":5,"nanos":87741459},"formatted_output":"","status":"completed"}`),
			event(`{"type":"exec_command_end","call_id":"call_2","exit_code":0,"aggregated_output":"ok"}`),
			item(`{"type":"function_call_output","call_id":"call_2","output":"ok"}`),
			event(`{"type":"exec_command_end","call_id":"call_unknown","exit_code":2}`),
		),
		want: []msg{
			{Role: RoleAssistant, Kind: KindToolCall, Tool: "exec_command", Input: "npm test", Call: "call_1"},
			{Role: RoleTool, Kind: KindToolResult, Tool: "exec_command", Call: "call_1", Err: true, Exit: exit(1), Proc: "48230", Text: "Chunk ID: a21e41\nWall time: 1.0037 seconds\nProcess running with session ID 48230\nOriginal token count: 0\nOutput:\n"},
			{Role: RoleTool, Kind: KindToolResult, Call: "call_2", Exit: exit(0), Text: "ok"},
		},
	}, {
		name: "apply_patch, patch_apply_end and MCP failures",
		in: lines(
			item(`{"type":"custom_tool_call","status":"completed","call_id":"call_p","name":"apply_patch","input":"*** Begin Patch\n*** Update File: a.go\n*** End Patch\n"}`),
			item(`{"type":"custom_tool_call_output","call_id":"call_p","output":"{\"output\":\"Success. Updated the following files:\\nM a.go\\n\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":2.2}}"}`),
			item(`{"type":"custom_tool_call","status":"completed","call_id":"call_q","name":"apply_patch","input":"*** Begin Patch\n*** End Patch\n"}`),
			item(`{"type":"custom_tool_call_output","call_id":"call_q","output":"Exit code: 1\nWall time: 0 seconds\nOutput:\ninvalid patch: context not found\n"}`),
			event(`{"type":"patch_apply_end","call_id":"call_p","turn_id":"t","stdout":"Success.","stderr":"","success":false,"changes":{},"status":"failed"}`),
			item(`{"type":"function_call","name":"mcp__fs__read","arguments":"{\"path\":\"/x\"}","call_id":"call_m"}`),
			event(`{"type":"mcp_tool_call_end","call_id":"call_m","invocation":{"server":"fs","tool":"read"},"duration":{"secs":0,"nanos":1},"result":{"Err":"no such file"}}`),
			item(`{"type":"function_call_output","call_id":"call_m","output":"no such file"}`),
		),
		want: []msg{
			{Role: RoleAssistant, Kind: KindToolCall, Tool: "apply_patch", Input: "*** Begin Patch\n*** Update File: a.go\n*** End Patch\n", Call: "call_p"},
			{Role: RoleTool, Kind: KindToolResult, Tool: "apply_patch", Call: "call_p", Err: true, Exit: exit(0), Text: "Success. Updated the following files:\nM a.go\n"},
			{Role: RoleAssistant, Kind: KindToolCall, Tool: "apply_patch", Input: "*** Begin Patch\n*** End Patch\n", Call: "call_q"},
			{Role: RoleTool, Kind: KindToolResult, Tool: "apply_patch", Call: "call_q", Err: true, Exit: exit(1), Text: "Exit code: 1\nWall time: 0 seconds\nOutput:\ninvalid patch: context not found\n"},
			{Role: RoleAssistant, Kind: KindToolCall, Tool: "mcp__fs__read", Input: `{"path":"/x"}`, Call: "call_m"},
			{Role: RoleTool, Kind: KindToolResult, Tool: "mcp__fs__read", Call: "call_m", Err: true, Text: "no such file"},
		},
	}, {
		name: "local shell and web search calls",
		in: lines(
			item(`{"type":"local_shell_call","call_id":"call_l","status":"completed","action":{"type":"exec","command":["bash","-lc","ls -la"],"timeout_ms":10000,"working_directory":"/w"}}`),
			item(`{"type":"function_call_output","call_id":"call_l","output":"total 0"}`),
			item(`{"type":"web_search_call","status":"completed","action":{"type":"search","query":"go 1.26 release notes"}}`),
		),
		want: []msg{
			{Role: RoleAssistant, Kind: KindToolCall, Tool: "local_shell", Input: "ls -la", Call: "call_l"},
			{Role: RoleTool, Kind: KindToolResult, Tool: "local_shell", Call: "call_l", Text: "total 0"},
			{Role: RoleAssistant, Kind: KindToolCall, Tool: "web_search", Input: `{"type":"search","query":"go 1.26 release notes"}`},
		},
	}, {
		name: "compaction summaries and error events are system messages",
		in: lines(
			ev("compacted", `{"message":"Summary of the work so far: tests pass.","replacement_history":[{"type":"message","role":"user","content":[{"type":"input_text","text":"old prompt"}]}]}`),
			event(`{"type":"context_compacted"}`),
			event(`{"type":"error","message":"You've hit your usage limit."}`),
		),
		want: []msg{
			{Role: RoleSystem, Kind: KindText, Text: "Summary of the work so far: tests pass."},
			{Role: RoleSystem, Kind: KindText, Text: "You've hit your usage limit."},
		},
	}, {
		name: "events and record types that carry no message",
		in: lines(
			event(`{"type":"task_started","turn_id":"t","started_at":1778488037,"model_context_window":258400,"collaboration_mode_kind":"default"}`),
			event(`{"type":"token_count","info":null,"rate_limits":{"limit_id":"codex","primary":{"used_percent":4.0,"window_minutes":300,"resets_at":1778500000}}}`),
			event(`{"type":"task_complete","turn_id":"t","last_agent_message":"done","completed_at":1778488052,"duration_ms":15481}`),
			event(`{"type":"item_completed","thread_id":"th","turn_id":"t","item":{"type":"AgentMessage","id":"i","content":[{"type":"Text","text":"done"}]}}`),
			`{"timestamp":"2026-07-01T10:00:00.000Z","ordinal":7,"type":"world_state","payload":{"type":"snapshot","content":"not a list"}}`,
			item(`{"type":"ghost_snapshot","ghost_commit":{"id":"abc"}}`),
			item(`{"type":"compaction","encrypted_content":"gAAAA"}`),
		),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := readString(t, HarnessCodex, tt.in)
			if s.Skipped != 0 {
				t.Errorf("Skipped = %d %v, want 0", s.Skipped, s.SkipReasons)
			}
			sameMsgs(t, s.Messages, tt.want)
		})
	}
}

// A command that outlives its first answer is polled with write_stdin until it exits: one
// logical call, its output the answers' bodies in order, its exit code the last one's. The
// lines are in the shapes of the real 0.125 rollout in the samples (exec_command with
// yield_time_ms, "Process running with session ID", write_stdin polls with chars "" and
// "\u0003", the tool's own "write_stdin failed" answer, exec_command_end).
func TestCodexPolledCommand(t *testing.T) {
	build := `{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"npm run build\",\"workdir\":\"/w/web\",\"yield_time_ms\":10000,\"max_output_tokens\":12000}","call_id":"call_b"}`
	poll := func(call, chars string) string {
		return item(`{"type":"function_call","name":"write_stdin","arguments":"{\"session_id\":42,\"chars\":\"` + chars + `\",\"yield_time_ms\":30000,\"max_output_tokens\":12000}","call_id":"` + call + `"}`)
	}
	out := func(call, header, body string) string {
		return item(`{"type":"function_call_output","call_id":"` + call + `","output":"Chunk ID: 1a2b3c\nWall time: 30.0021 seconds\n` + header + `\nOriginal token count: 12\nOutput:\n` + body + `"}`)
	}
	running := "Process running with session ID 42"
	tests := []struct {
		name string
		in   string
		want []msg
	}{{
		name: "polled until it failed: one call, one result",
		in: lines(
			item(build),
			out("call_b", running, `> web@1.0.0 build\n> tsc -p .\n`),
			poll("call_p1", ""),
			out("call_p1", running, `compiling 412 files\n`),
			poll("call_p2", `\\u0003`),
			item(`{"type":"function_call_output","call_id":"call_p2","output":"write_stdin failed: stdin is closed for this session; rerun exec_command with tty=true to keep stdin open"}`),
			poll("call_p3", ""),
			out("call_p3", "Process exited with code 2", `src/app.ts(3,1): error TS2304: Cannot find name 'foo'.\n`),
			event(`{"type":"exec_command_end","call_id":"call_b","process_id":"42","turn_id":"t","command":["/bin/bash","-lc","npm run build"],"cwd":"/w/web","parsed_cmd":[],"source":"unified_exec_startup","stdout":"","stderr":"","aggregated_output":"","exit_code":2,"duration":{"secs":61,"nanos":0},"formatted_output":"","status":"completed"}`),
			item(`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"The build fails on an undefined name."}]}`),
		),
		want: []msg{
			{Role: RoleAssistant, Kind: KindToolCall, Tool: "exec_command", Input: "npm run build", Call: "call_b"},
			{Role: RoleTool, Kind: KindToolResult, Tool: "exec_command", Call: "call_b", Err: true, Exit: exit(2), Proc: "42",
				Text: "> web@1.0.0 build\n> tsc -p .\ncompiling 412 files\n[stdin: \"\\x03\"]\nwrite_stdin failed: stdin is closed for this session; rerun exec_command with tty=true to keep stdin open\nsrc/app.ts(3,1): error TS2304: Cannot find name 'foo'.\n"},
			{Role: RoleAssistant, Kind: KindText, Text: "The build fails on an undefined name."},
		},
	}, {
		name: "the end event before the last poll; a success",
		in: lines(
			item(build),
			out("call_b", running, ""),
			event(`{"type":"exec_command_end","call_id":"call_b","process_id":"42","command":["/bin/bash","-lc","npm run build"],"exit_code":0}`),
			poll("call_p1", ""),
			out("call_p1", "Process exited with code 0", `built in 61s\n`),
		),
		want: []msg{
			{Role: RoleAssistant, Kind: KindToolCall, Tool: "exec_command", Input: "npm run build", Call: "call_b"},
			{Role: RoleTool, Kind: KindToolResult, Tool: "exec_command", Call: "call_b", Exit: exit(0), Proc: "42", Text: "built in 61s\n"},
		},
	}, {
		name: "an orphan: the command started before the read; its end event names it",
		in: lines(
			poll("call_p1", ""),
			out("call_p1", running, `compiling\n`),
			poll("call_p2", ""),
			out("call_p2", "Process exited with code 2", `error TS2304\n`),
			event(`{"type":"exec_command_end","call_id":"call_b","process_id":"42","command":["/bin/bash","-lc","npm run build"],"exit_code":2}`),
		),
		want: []msg{
			{Role: RoleTool, Kind: KindToolResult, Tool: "exec_command", Input: "npm run build", Call: "call_b", Err: true, Exit: exit(2), Proc: "42", Text: "compiling\nerror TS2304\n"},
		},
	}, {
		name: "an orphan whose end event came first",
		in: lines(
			event(`{"type":"exec_command_end","call_id":"call_b","process_id":"42","command":["/bin/bash","-lc","npm run build"],"exit_code":2}`),
			poll("call_p1", ""),
			out("call_p1", "Process exited with code 2", `error TS2304\n`),
		),
		want: []msg{
			{Role: RoleTool, Kind: KindToolResult, Tool: "exec_command", Input: "npm run build", Call: "call_b", Err: true, Exit: exit(2), Proc: "42", Text: "error TS2304\n"},
		},
	}, {
		name: "a write_stdin the reader cannot read stays a call of its own",
		in: lines(
			item(`{"type":"function_call","name":"write_stdin","arguments":"{\"chars\":\"y\"}","call_id":"call_w"}`),
			item(`{"type":"function_call_output","call_id":"call_w","output":"ok"}`),
		),
		want: []msg{
			{Role: RoleAssistant, Kind: KindToolCall, Tool: "write_stdin", Input: `{"chars":"y"}`, Call: "call_w"},
			{Role: RoleTool, Kind: KindToolResult, Tool: "write_stdin", Call: "call_w", Text: "ok"},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := readString(t, HarnessCodex, tt.in)
			if s.Skipped != 0 {
				t.Errorf("Skipped = %d %v", s.Skipped, s.SkipReasons)
			}
			sameMsgs(t, s.Messages, tt.want)
		})
	}
}

func TestCodexSessionFields(t *testing.T) {
	in := lines(
		metaLine,
		ev("turn_context", `{"turn_id":"t1","cwd":"/w/api","model":"gpt-5.5","summary":"auto","effort":"medium"}`),
		ev("turn_context", `{"turn_id":"t2","cwd":"/w/api/sub","model":"gpt-5.5-codex","summary":"none"}`),
	)
	s := readString(t, HarnessCodex, in)
	if s.Harness != HarnessCodex || s.ID != "019e1625-789d-76c0-80ab-3724b5ddb799" || s.CWD != "/w/api/sub" ||
		s.Branch != "feat/x" || s.Version != "0.125.0" || s.Model != "gpt-5.5-codex" || s.Remote != "git@github.com:acme/api.git" {
		t.Errorf("session = %+v", *s)
	}
	if got := s.Started.Format("15:04:05.000"); got != "08:26:55.042" {
		t.Errorf("Started = %s, want session_meta's own timestamp", got)
	}
	// Without a turn_context, session_meta's cwd stands.
	s = readString(t, HarnessCodex, lines(metaLine))
	if s.CWD != "/w/api" {
		t.Errorf("CWD = %q", s.CWD)
	}
}

func TestCodexLegacy(t *testing.T) {
	in := lines(
		`{"id":"c27a914d-1f2e-4b3a-9c8d-7e6f5a4b3c2d","timestamp":"2025-08-20T13:20:47.060Z","instructions":null,"git":{"commit_hash":"abc123","branch":"main","repository_url":"git@github.com:user/test-project.git"}}`,
		`{"record_type":"state"}`,
		`{"type":"message","id":null,"role":"user","content":[{"type":"input_text","text":"<environment_context>\n  <cwd>/x/proj</cwd>\n  <sandbox_mode>workspace-write</sandbox_mode>\n</environment_context>"}]}`,
		`{"type":"message","id":null,"role":"user","content":[{"type":"input_text","text":"index the pre-envelope rollouts"}]}`,
		`{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"opaque"}`,
		`{"type":"function_call","id":"fc_1","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"call_1"}`,
		`{"type":"function_call_output","call_id":"call_1","output":"{\"output\":\"README.md\\n\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":0.0}}"}`,
		`{"type":"local_shell_call","id":"lsc_1","call_id":null,"status":"completed","action":{"type":"exec","command":["ls","-a"]}}`,
		`{"type":"message","id":"msg_1","role":"assistant","content":[{"type":"text","text":"listed the directory"}]}`,
		`{"record_type":"state"}`,
	)
	s := readString(t, HarnessCodex, in)
	if s.Skipped != 0 {
		t.Errorf("Skipped %d %v", s.Skipped, s.SkipReasons)
	}
	if s.ID != "c27a914d-1f2e-4b3a-9c8d-7e6f5a4b3c2d" || s.CWD != "/x/proj" || s.Branch != "main" || s.Remote != "git@github.com:user/test-project.git" {
		t.Errorf("session = %+v", *s)
	}
	if got := s.Started.Format("2006-01-02T15:04:05.000Z"); got != "2025-08-20T13:20:47.060Z" {
		t.Errorf("Started = %s", got)
	}
	sameMsgs(t, s.Messages, []msg{
		{Role: RoleSystem, Kind: KindText, Text: "<environment_context>\n  <cwd>/x/proj</cwd>\n  <sandbox_mode>workspace-write</sandbox_mode>\n</environment_context>"},
		{Role: RoleUser, Kind: KindText, Text: "index the pre-envelope rollouts"},
		{Role: RoleAssistant, Kind: KindToolCall, Tool: "shell", Input: "ls", Call: "call_1"},
		{Role: RoleTool, Kind: KindToolResult, Tool: "shell", Call: "call_1", Exit: exit(0), Text: "README.md\n"},
		{Role: RoleAssistant, Kind: KindToolCall, Tool: "local_shell", Input: "ls -a", Call: "lsc_1"},
		{Role: RoleAssistant, Kind: KindText, Text: "listed the directory"},
	})
	for _, m := range s.Messages {
		if !m.Timestamp.IsZero() {
			t.Errorf("legacy item has a timestamp: %v", m.Timestamp)
		}
	}
}

func TestCodexSkips(t *testing.T) {
	in := lines(
		metaLine,
		`{"timestamp":"2026-05-11T08:27:17.490Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"torn`,
		`{"timestamp":"2026-05-11T08:27:17.490Z","type":"response_item"}`,
		`{"timestamp":"2026-05-11T08:27:17.490Z"}`,
		`42`,
		item(`{"type":"message","role":"user","content":"a string, not parts"}`),
		item(`{"type":"function_call","name":["x"],"arguments":null,"call_id":7}`),
		// arguments as an object rather than a JSON string are read all the same
		item(`{"type":"function_call","name":"exec_command","arguments":{"cmd":"ls"},"call_id":"c"}`),
		item(`{"type":"message","role":"user","content":[{"type":"input_text","text":"still here"}]}`),
	)
	s := readString(t, HarnessCodex, in)
	want := map[string]int{
		skipMalformed:                  1,
		"missing payload":              1,
		skipNoType:                     1,
		skipNotObject:                  1,
		"invalid message record":       1,
		"invalid function_call record": 1,
	}
	if s.Skipped != 6 {
		t.Fatalf("Skipped %d %v, want 6", s.Skipped, s.SkipReasons)
	}
	for k, n := range want {
		if s.SkipReasons[k] != n {
			t.Errorf("SkipReasons[%q] = %d, want %d (%v)", k, s.SkipReasons[k], n, s.SkipReasons)
		}
	}
	sameMsgs(t, s.Messages, []msg{
		{Role: RoleAssistant, Kind: KindToolCall, Tool: "exec_command", Input: "ls", Call: "c"},
		{Role: RoleUser, Kind: KindText, Text: "still here"},
	})
}

func TestShellLine(t *testing.T) {
	for _, tt := range []struct {
		argv []string
		want string
	}{
		{nil, ""},
		{[]string{"npm test"}, "npm test"},
		{[]string{"/bin/zsh", "-lc", "sed -n '1,5p' a.md"}, "sed -n '1,5p' a.md"},
		{[]string{"bash", "-lc", "a", "b"}, "bash -lc a b"},
		{[]string{"python", "-c", "print(1)"}, "python -c 'print(1)'"},
		{[]string{"echo", "it's", ""}, `echo 'it'\''s' ''`},
	} {
		if got := shellLine(tt.argv); got != tt.want {
			t.Errorf("shellLine(%q) = %q, want %q", tt.argv, got, tt.want)
		}
	}
}

func TestHeaderExitCode(t *testing.T) {
	for text, want := range map[string]string{
		"Chunk ID: a\nWall time: 1 seconds\nProcess exited with code 0\nOriginal token count: 1\nOutput:\nx": "0",
		"Exit code: 1\nWall time: 2 seconds\n":                      "1",
		"Chunk ID: a\nProcess running with session ID 1\nOutput:\n": "",
		"Output:\nProcess exited with code 1":                       "",
		"Wall time: 1 seconds\nhello\nProcess exited with code 1":   "",
		strings.Repeat("Wall time: 1\n", 9) + "Exit code: 4\n":      "",
	} {
		got := ""
		if p := headerExitCode(text); p != nil {
			got = exit(*p)
		}
		if got != want {
			t.Errorf("headerExitCode(%q) = %q, want %q", text, got, want)
		}
	}
}
