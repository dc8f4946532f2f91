package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
)

// Payload is the part of a host's event that reflect uses. Both hosts add fields with every
// release and hostile input is possible, so decoding is lenient: a field of the wrong type is
// treated as absent, never as an error.
type Payload struct {
	Event                string
	SessionID            string
	TranscriptPath       string // empty when absent or null (Codex)
	CWD                  string
	Source               string // SessionStart
	Prompt               string // UserPromptSubmit
	ToolName             string
	ToolInput            json.RawMessage
	ToolResponse         json.RawMessage
	Error                string // PostToolUseFailure
	Trigger              string // PreCompact
	Reason               string // SessionEnd
	LastAssistantMessage string // Stop
	StopHookActive       bool
	TurnID               string
	Model                string

	// Host is the host that sent the payload (HostClaude, HostCodex, …) and HostEvent its
	// own name for the event, when it differs from Event, reflect's (see decodeFor).
	Host, HostEvent string
	// judged: the host's adapter has read the tool result already; failed and failure are
	// its verdict and the failure's text.
	judged, failed bool
	failure        string
}

// ErrNotPayload means stdin was not a JSON object naming its event.
var ErrNotPayload = errors.New("not a hook payload")

// Decode reads one payload.
func Decode(data []byte) (Payload, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(bytes.TrimSpace(data), &raw); err != nil || raw == nil {
		return Payload{}, ErrNotPayload
	}
	str := func(k string) string {
		var s string
		if v, ok := raw[k]; ok && json.Unmarshal(v, &s) == nil {
			return strings.ToValidUTF8(s, "\uFFFD")
		}
		return ""
	}
	p := Payload{
		Event: str("hook_event_name"), SessionID: str("session_id"), TranscriptPath: str("transcript_path"),
		CWD: str("cwd"), Source: str("source"), Prompt: str("prompt"), ToolName: str("tool_name"),
		ToolInput: raw["tool_input"], ToolResponse: raw["tool_response"], Error: str("error"),
		Trigger: str("trigger"), Reason: str("reason"), LastAssistantMessage: str("last_assistant_message"),
		TurnID: str("turn_id"), Model: str("model"),
	}
	if v, ok := raw["stop_hook_active"]; ok {
		json.Unmarshal(v, &p.StopHookActive)
	}
	if p.Event == "" {
		return Payload{}, ErrNotPayload
	}
	return p, nil
}

// toolFailed reads a PostToolUse tool_response for the ways both hosts report a failure: a
// non-zero exit code, an error flag or message, success false, or output that starts with
// "Exit code N".
func toolFailed(resp json.RawMessage) (bool, string) {
	var v any
	if len(resp) == 0 || json.Unmarshal(resp, &v) != nil {
		return false, ""
	}
	switch t := v.(type) {
	case string:
		return exitCodeLine(t), t
	case map[string]any:
		out := firstString(t, "stderr", "output", "stdout", "error", "content")
		for _, k := range []string{"exit_code", "exitCode", "returncode", "code"} {
			if n, ok := t[k].(float64); ok && n != 0 {
				return true, out
			}
		}
		if b, ok := t["is_error"].(bool); ok && b {
			return true, out
		}
		if b, ok := t["success"].(bool); ok && !b {
			return true, out
		}
		if e, ok := t["error"].(string); ok && e != "" {
			return true, out
		}
		if s, ok := t["output"].(string); ok && exitCodeLine(s) {
			return true, s
		}
	}
	return false, ""
}

func exitCodeLine(s string) bool {
	s = strings.TrimSpace(s)
	for _, p := range []string{"Exit code ", "Exit code: ", "exit status "} {
		if rest, ok := strings.CutPrefix(s, p); ok && rest != "" && rest[0] >= '1' && rest[0] <= '9' {
			return true
		}
	}
	return false
}

func firstString(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := m[k].(string); ok && strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

// inputText renders a tool input for a person: the command when there is one, else JSON.
func inputText(in json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(in, &m) == nil {
		if s := firstString(m, "command", "cmd", "file_path", "path", "pattern", "query", "url"); s != "" {
			return s
		}
	}
	var s string
	if json.Unmarshal(in, &s) == nil {
		return s
	}
	return string(in)
}
