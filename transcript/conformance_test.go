package transcript

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// samplesDir holds real transcripts from other projects' test fixtures (see its
// SOURCES.md). They are not part of this repository; the test runs where they exist.
const samplesDir = "../../shared/samples"

// The counts below were checked line by line against the files: every user prompt,
// assistant block and tool result is one message; file-history-snapshot, summary and
// system/turn_duration|stop_hook_summary lines are none; Codex event_msg
// user_message/agent_message repeat response items and encrypted reasoning has no text.
func TestConformance(t *testing.T) {
	if _, err := os.Stat(samplesDir); err != nil {
		t.Skipf("no samples at %s", samplesDir)
	}
	tests := []struct {
		file                            string
		harness                         Harness
		id, cwd, branch, model, version string
		lines                           int
		counts                          map[string]int
		errors, exits, sidechain        int
	}{{
		file: "claude/-tmp-private/4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl", harness: HarnessClaude,
		id: "4c2ddfdc-b619-4525-8d03-1950fb1b0257", cwd: "/tmp/private", branch: "analytics-v2",
		model: "claude-sonnet-4-5-20250929", version: "2.0.64", lines: 25,
		// 3 prompts; 4 text and 6 tool_use blocks, three of them under one message.id; 6 results
		counts: map[string]int{"user/text": 3, "assistant/text": 4, "assistant/tool_call": 6, "tool/tool_result": 6},
	}, {
		file: "claude/-tmp-private/agent-50243ee8.jsonl", harness: HarnessClaude,
		id: "4c2ddfdc-b619-4525-8d03-1950fb1b0257", cwd: "/tmp/private", branch: "analytics-v2",
		model: "converse/jp.anthropic.claude-haiku-4-5-20251001-v1:0", version: "2.0.64", lines: 2,
		counts:    map[string]int{"user/text": 1, "assistant/text": 1},
		sidechain: 2,
	}, {
		file: "claude/session-9eda1058_v2.1.4.jsonl", harness: HarnessClaude,
		id: "9eda1058-9706-484a-b992-d03f9cfa2546", cwd: "/Users/user/repo", branch: "conversations",
		model: "claude-sonnet-4-5-20250929", version: "2.1.4", lines: 40,
		// 3 prompts and "[Request interrupted by user for tool use]"; the rejected Write is the error
		counts: map[string]int{"user/text": 4, "assistant/text": 5, "assistant/thinking": 4,
			"assistant/tool_call": 3, "tool/tool_result": 3},
		errors: 1,
	}, {
		file: "claude/e9fb405b_v2.1.7_turn-2.jsonl", harness: HarnessClaude,
		id: "e9fb405b-169f-40eb-9396-7e75076f045d", cwd: "/Users/User/repo/codemie-ai/codemie-code", branch: "hooks",
		model: "claude-sonnet-4-5-20250929", version: "2.1.7", lines: 50,
		counts: map[string]int{"user/text": 1, "assistant/text": 5, "assistant/thinking": 11,
			"assistant/tool_call": 14, "tool/tool_result": 14},
	}, {
		file: "codex/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.first60.jsonl", harness: HarnessCodex,
		id: "019e1625-789d-76c0-80ab-3724b5ddb799", cwd: "/Users/Sample_User/repos/codemie-ai/codemie-code",
		branch: "feat/codex-agent-plugin", model: "gpt-5.5", version: "0.125.0", lines: 60,
		// developer + AGENTS.md/environment_context are system; 2 prompts; 3 replies; 5
		// exec_command calls, each answered "Process running…" and polled by write_stdin (7
		// polls) until it exited: 5 logical calls, 5 results
		counts: map[string]int{"system/text": 2, "user/text": 2, "assistant/text": 3,
			"assistant/tool_call": 5, "tool/tool_result": 5},
		// every command exited 0 (5 exec_command_end events, 5 "Process exited with code 0")
		exits: 5,
	}}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.file), func(t *testing.T) {
			path := filepath.Join(samplesDir, tt.file)
			info, err := os.Stat(path)
			if err != nil {
				t.Skip(err)
			}
			s, err := ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, s, info.Size())
			if s.Harness != tt.harness || s.ID != tt.id || s.CWD != tt.cwd || s.Branch != tt.branch ||
				s.Model != tt.model || s.Version != tt.version {
				t.Errorf("session %s %s cwd=%s branch=%s model=%s version=%s", s.Harness, s.ID, s.CWD, s.Branch, s.Model, s.Version)
			}
			if s.Lines != tt.lines || s.Skipped != 0 || s.Torn || s.End != info.Size() {
				t.Errorf("Lines %d Skipped %d %v Torn %v End %d", s.Lines, s.Skipped, s.SkipReasons, s.Torn, s.End)
			}
			if got := counts(s.Messages); !reflect.DeepEqual(got, tt.counts) {
				t.Errorf("counts = %v, want %v", got, tt.counts)
			}
			var errs, exits, side int
			for _, m := range s.Messages {
				if m.IsError {
					errs++
				}
				if m.ExitCode != nil {
					exits++
					if *m.ExitCode != 0 {
						t.Errorf("exit code %d on %s", *m.ExitCode, m.CallID)
					}
				}
				if m.Sidechain {
					side++
				}
				if m.ToolName == "write_stdin" {
					t.Errorf("a poll at %d was not folded into its command", m.Offset)
				}
				if m.Kind == KindToolResult && m.ToolName == "" {
					t.Errorf("result %s not joined to its call", m.CallID)
				}
				if m.Timestamp.IsZero() {
					t.Errorf("message at %d has no timestamp", m.Offset)
				}
			}
			if errs != tt.errors || exits != tt.exits || side != tt.sidechain {
				t.Errorf("errors %d exits %d sidechain %d", errs, exits, side)
			}
			checkResume(t, path)
		})
	}
}
