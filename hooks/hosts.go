package hooks

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// Hosts whose hooks `reflect hook HOST` answers: the subcommand names the host that runs it.
// Each host's payloads are mapped onto reflect's own events (Claude Code's names, which the
// dispatcher switches on) and each answer goes out in the host's own shape
// (docs/more-hosts.md §J; ../shared/reference/more-hosts.md for the sources).
const (
	HostClaude  = "claude"
	HostCodex   = "codex"
	HostGemini  = "gemini"
	HostCopilot = "copilot"
	HostCursor  = "cursor"
)

// KnownHost says whether `reflect hook host` is one reflect answers.
func KnownHost(host string) bool {
	switch host {
	case HostClaude, HostCodex, HostGemini, HostCopilot, HostCursor, HostOpencode:
		return true
	}
	return false
}

// harnessOf is the harness a host's captures and learnings are filed under (the transcript
// package's names).
func harnessOf(host string) string {
	if host == HostClaude {
		return "claude-code"
	}
	return host
}

// geminiEvents maps Gemini CLI's events onto reflect's (§E.3, and Gemini's own `hooks
// migrate` table): BeforeAgent is the prompt, AfterTool a tool result, AfterAgent the end of
// a turn, PreCompress the compaction.
var geminiEvents = map[string]string{
	"SessionStart": "SessionStart", "BeforeAgent": "UserPromptSubmit", "AfterTool": "PostToolUse",
	"AfterAgent": "Stop", "PreCompress": "PreCompact", "SessionEnd": "SessionEnd",
}

// copilotEvents maps Copilot CLI's events, both dialects (§F.3): camelCase names, given in
// argv since their payloads carry none, and the PascalCase aliases with hook_event_name.
var copilotEvents = map[string]string{
	"sessionStart": "SessionStart", "userPromptSubmitted": "UserPromptSubmit", "postToolUse": "PostToolUse",
	"postToolUseFailure": "PostToolUseFailure", "agentStop": "Stop", "preCompact": "PreCompact",
	"sessionEnd":   "SessionEnd",
	"SessionStart": "SessionStart", "UserPromptSubmit": "UserPromptSubmit", "PostToolUse": "PostToolUse",
	"PostToolUseFailure": "PostToolUseFailure", "Stop": "Stop", "PreCompact": "PreCompact", "SessionEnd": "SessionEnd",
}

// cursorEvents maps Cursor's agent events (§H.3).
var cursorEvents = map[string]string{
	"sessionStart": "SessionStart", "beforeSubmitPrompt": "UserPromptSubmit", "postToolUse": "PostToolUse",
	"postToolUseFailure": "PostToolUseFailure", "preCompact": "PreCompact", "stop": "Stop", "sessionEnd": "SessionEnd",
}

// decodeFor reads one payload as host sends it (argEvent is the event named on the command
// line, for Copilot's camelCase hooks). The result's Event is reflect's name for it,
// HostEvent the host's; Host says which host sent it, which differs from host when another
// host ran a Claude Code hook entry (Cursor and Copilot CLI both run .claude/settings.json
// hooks, with their own payloads).
func decodeFor(host, argEvent string, data []byte) (Payload, error) {
	p, err := decodeHost(host, argEvent, data)
	p.SessionID = cleanSessionID(p.SessionID)
	return p, err
}

// decodeHost is decodeFor before the session id is cleaned.
func decodeHost(host, argEvent string, data []byte) (Payload, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(bytes.TrimSpace(data), &raw); err != nil || raw == nil {
		return Payload{}, ErrNotPayload
	}
	f := rawFields(raw)
	if host == HostClaude {
		switch {
		case f.str("cursor_version") != "" || f.has("conversation_id") && f.has("workspace_roots"):
			host = HostCursor // Cursor running a Claude Code hook (its third-party setting)
		case f.str("timestamp") != "" && !f.has("permission_mode"):
			// Copilot CLI's PascalCase dialect, from the repository's .claude/settings.json:
			// an ISO timestamp, which no Claude Code payload carries (its Stop and
			// PreCompact do carry a transcript_path, so that is no sign)
			host = HostCopilot
		}
	}
	var p Payload
	var err error
	switch host {
	case HostGemini:
		p, err = Decode(data)
		if err != nil {
			return p, err
		}
		p.HostEvent, p.Event = p.Event, geminiEvents[p.Event]
		p.LastAssistantMessage = f.str("prompt_response")
		p.failed, p.failure = geminiToolFailed(f.obj("tool_response"))
		p.judged = true
	case HostCopilot:
		p = copilotPayload(f, argEvent)
	case HostCursor:
		p = cursorPayload(f)
	case HostOpencode:
		p = opencodePayload(f, argEvent)
	default:
		return Decode(data)
	}
	p.Host = host
	if p.HostEvent == "" && p.Event == "" {
		return Payload{}, ErrNotPayload
	}
	if p.Event == "" {
		p.Event = "-" + p.HostEvent // an event reflect does not handle: a quiet no-op
	}
	return p, nil
}

// cleanSessionID is a host's session id as reflect writes it (state file names, learnings'
// source, commit messages): without control characters, a NUL among them, which made git
// fsck report every commit that named the session; and at most 200 bytes.
func cleanSessionID(s string) string {
	if strings.IndexFunc(s, unicode.IsControl) >= 0 {
		s = strings.Map(func(r rune) rune {
			if unicode.IsControl(r) {
				return -1
			}
			return r
		}, s)
	}
	if len(s) > maxSessionID {
		s = strings.ToValidUTF8(s[:maxSessionID], "")
	}
	return s
}

// maxSessionID bounds a session id: the hosts' are UUIDs and the like, under 64 bytes.
const maxSessionID = 200

// rawFields is a decoded object whose fields are taken leniently.
type rawFields map[string]json.RawMessage

func (f rawFields) str(k string) string {
	var s string
	if v, ok := f[k]; ok && json.Unmarshal(v, &s) == nil {
		return strings.ToValidUTF8(s, "\uFFFD")
	}
	return ""
}

func (f rawFields) has(k string) bool {
	v, ok := f[k]
	return ok && !bytes.Equal(bytes.TrimSpace(v), []byte("null"))
}

func (f rawFields) obj(k string) rawFields {
	var m map[string]json.RawMessage
	if v, ok := f[k]; ok && json.Unmarshal(v, &m) == nil {
		return m
	}
	return nil
}

// first is the first of keys that holds a string.
func (f rawFields) first(keys ...string) string {
	for _, k := range keys {
		if s := f.str(k); s != "" {
			return s
		}
	}
	return ""
}

// geminiExit is the line Gemini's shell tool writes with a command's exit code.
var geminiExit = regexp.MustCompile(`(?m)^Exit Code: (-?\d+)\s*$`)

// geminiToolFailed reads an AfterTool tool_response ({llmContent, returnDisplay, error?}):
// an error, or a shell output whose "Exit Code:" line is not 0.
func geminiToolFailed(resp rawFields) (bool, string) {
	if resp == nil {
		return false, ""
	}
	out := resp.str("llmContent")
	if out == "" {
		out = resp.str("returnDisplay")
	}
	if e := resp.str("error"); e != "" {
		return true, strings.TrimSpace(e + "\n" + out)
	}
	if e := resp.obj("error"); e != nil {
		return true, strings.TrimSpace(e.str("message") + "\n" + out)
	}
	if m := geminiExit.FindStringSubmatch(out); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil && n != 0 {
			return true, out
		}
	}
	return false, ""
}

// copilotPayload reads Copilot CLI's payload in either dialect (§F.4): camelCase (epoch-ms
// timestamp, no event name: argEvent gives it) or PascalCase (snake_case fields,
// hook_event_name).
func copilotPayload(f rawFields, argEvent string) Payload {
	ev := f.str("hook_event_name")
	if ev == "" {
		ev = argEvent
	}
	p := Payload{HostEvent: ev, Event: copilotEvents[ev],
		SessionID:      f.first("sessionId", "session_id"),
		TranscriptPath: f.first("transcriptPath", "transcript_path"),
		CWD:            f.str("cwd"), Source: f.str("source"), Prompt: f.str("prompt"),
		ToolName: f.first("toolName", "tool_name"), Trigger: f.str("trigger"), Reason: f.str("reason"),
	}
	if b, ok := f["stop_hook_active"]; ok {
		json.Unmarshal(b, &p.StopHookActive)
	}
	p.ToolInput = f["toolArgs"]
	if p.ToolInput == nil {
		p.ToolInput = f["tool_input"]
	}
	if p.ToolInput != nil {
		// toolArgs is an object in the current reference, a JSON string in older docs
		var s string
		if json.Unmarshal(p.ToolInput, &s) == nil && json.Valid([]byte(s)) {
			p.ToolInput = json.RawMessage(s)
		}
	}
	p.judged = true
	res := f.obj("toolResult")
	if res == nil {
		res = f.obj("tool_result")
	}
	if res != nil {
		rt := res.first("resultType", "result_type")
		text := res.first("textResultForLlm", "text_result_for_llm")
		if rt == "failure" || rt == "error" {
			p.failed, p.failure = true, text
		}
	}
	if e := f.str("error"); e != "" {
		p.Error = e
	} else if eo := f.obj("error"); eo != nil {
		p.Error = eo.str("message")
	}
	if p.TranscriptPath == "" && p.SessionID != "" {
		p.TranscriptPath = copilotTranscript(p.SessionID)
	}
	return p
}

// copilotTranscript is where Copilot CLI keeps the events of a session (§F.7), for the
// events whose payload names no transcript (sessionEnd); "" when it is not there. A session
// id that is not a plain name cannot name a path.
func copilotTranscript(session string) string {
	for _, c := range session {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return ""
		}
	}
	home := os.Getenv("COPILOT_HOME")
	if home == "" {
		u, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		home = filepath.Join(u, ".copilot")
	}
	for _, p := range []string{filepath.Join(home, "session-state", session, "events.jsonl"), filepath.Join(home, "session-state", session+".jsonl")} {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// cursorPayload reads Cursor's payload (§H.4): the session is the conversation, the
// directory the first workspace root, a tool's output a JSON string.
func cursorPayload(f rawFields) Payload {
	ev := f.str("hook_event_name")
	p := Payload{HostEvent: ev, Event: cursorEvents[ev],
		SessionID: f.first("conversation_id", "session_id"), TranscriptPath: f.str("transcript_path"),
		CWD: f.str("cwd"), Prompt: f.str("prompt"), ToolName: f.str("tool_name"), ToolInput: f["tool_input"],
		Trigger: f.str("trigger"), Reason: f.str("reason"), Model: f.str("model"),
	}
	var roots []string
	if v, ok := f["workspace_roots"]; ok && json.Unmarshal(v, &roots) == nil {
		for _, r := range roots {
			if r != "" {
				p.CWD = strings.ToValidUTF8(r, "\uFFFD")
				break
			}
		}
	}
	out := f.str("tool_output")
	if out != "" {
		p.ToolResponse = json.RawMessage(strconv.Quote(out))
		if json.Valid([]byte(out)) {
			p.ToolResponse = json.RawMessage(out)
		}
	} else if v, ok := f["tool_output"]; ok {
		p.ToolResponse = v
	}
	if ev == "postToolUseFailure" {
		p.Error = f.first("error_message", "error", "tool_output")
		if p.Error == "" {
			p.Error = f.str("failure_type")
		}
	}
	return p
}

// contextOutput is the answer that gives the agent text, in the host's shape, or nil when
// the host takes no context on this event.
func (e *event) contextOutput(text string) *Output {
	switch e.Host {
	case HostCopilot:
		if e.Event != "SessionStart" {
			return nil // Copilot CLI drops what a command hook prints on a prompt (§F.3)
		}
		o := &Output{AdditionalContext: text}
		if e.HostEvent == "SessionStart" {
			// the PascalCase dialect: whether Copilot reads the Claude Code shape there is
			// not known (§L), so both shapes carry it
			o.HookSpecificOutput = &SpecificOutput{HookEventName: e.HostEvent, AdditionalContext: text}
		}
		return o
	case HostCursor:
		return &Output{CursorContext: text}
	case HostOpencode:
		return &Output{AdditionalContext: text} // the plugin pushes it into the system prompt
	case HostGemini:
		return &Output{HookSpecificOutput: &SpecificOutput{HookEventName: e.HostEvent, AdditionalContext: text}}
	}
	return &Output{HookSpecificOutput: &SpecificOutput{HookEventName: e.Event, AdditionalContext: text}}
}

// promptRecall says whether the host injects what a prompt hook prints: Copilot CLI drops
// it, so reflect does not spend the search.
func (e *event) promptRecall() bool { return e.Host != HostCopilot }

// nativelyWired says whether reflect's own hooks for host are installed where that host reads
// them, for the session whose workspace is cwd: then a Claude Code entry the host also runs
// must do nothing, or every event would be handled twice.
func nativelyWired(host, cwd string) bool {
	home, _ := os.UserHomeDir()
	var files []string
	switch host {
	case HostCursor:
		files = []string{filepath.Join(home, ".cursor", "hooks.json")}
		if cwd != "" {
			files = append(files, filepath.Join(cwd, ".cursor", "hooks.json"))
		}
	case HostCopilot:
		ch := os.Getenv("COPILOT_HOME")
		if ch == "" {
			ch = filepath.Join(home, ".copilot")
		}
		files = []string{filepath.Join(ch, "hooks", "reflect.json")}
		if cwd != "" {
			files = append(files, filepath.Join(cwd, ".github", "hooks", "reflect.json"))
		}
	}
	for _, f := range files {
		if data, err := readSmallFile(f); err == nil && bytes.Contains(data, []byte("hook "+host)) ||
			err == nil && bytes.Contains(data, []byte(`"`+host+`"`)) && bytes.Contains(data, []byte(`"hook"`)) {
			return true
		}
	}
	return false
}

func readSmallFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, os.ErrInvalid
	}
	buf := make([]byte, min(fi.Size(), 1<<20))
	n, _ := f.Read(buf)
	return buf[:n], nil
}
