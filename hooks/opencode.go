package hooks

import (
	"context"
)

// HostOpencode is opencode, through the plugin `reflect install opencode` writes: opencode
// has no command hooks, so the plugin runs `reflect hook opencode EVENT` with a payload of
// reflect's own (Claude Code's field names: session_id, cwd, prompt, tool_name, tool_input,
// tool_response) on the plugin hooks that match reflect's events (install/opencode.go), and
// injects the additionalContext it prints.
const HostOpencode = "opencode"

// opencodeEvents are the events the plugin sends.
var opencodeEvents = map[string]bool{"SessionStart": true, "UserPromptSubmit": true, "PostToolUse": true,
	"PreCompact": true, "Stop": true, "SessionEnd": true}

// opencodePayload reads the plugin's payload.
func opencodePayload(f rawFields, argEvent string) Payload {
	ev := f.str("hook_event_name")
	if ev == "" {
		ev = argEvent
	}
	p := Payload{HostEvent: ev, SessionID: f.str("session_id"), CWD: f.str("cwd"), Prompt: f.str("prompt"),
		ToolName: f.str("tool_name"), ToolInput: f["tool_input"], ToolResponse: f["tool_response"]}
	if opencodeEvents[ev] {
		p.Event = ev
	}
	return p
}

// mirrorOpencode brings the session's mirror (package opencode) up to date and makes it the
// transcript a capture reads: opencode keeps its sessions in a database, not a file.
func (e *event) mirrorOpencode(ctx context.Context) {
	if e.engine == nil || e.engine.MirrorOpencode == nil {
		return // the lean reflect hands these events to reflect-engine
	}
	path, err := e.engine.MirrorOpencode(ctx, e.repo.StateDir(), e.SessionID)
	if err != nil {
		e.log.Warn("opencode session not read", "session", e.SessionID, "err", err)
		return
	}
	e.TranscriptPath = path
}
