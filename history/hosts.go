package history

import (
	"path/filepath"
	"strings"
)

// Which files under a host's folder are its transcripts.

// jsonlFile: any *.jsonl file (Claude Code's projects, Codex's sessions, opencode's mirrors).
func jsonlFile(path string) bool { return strings.HasSuffix(path, ".jsonl") }

// geminiFile: Gemini CLI's sessions, ~/.gemini/tmp/<slug>/chats/session-*.jsonl (and
// .json before v0.39), and its subagents' chats/<parent>/<id>.jsonl; not the checkpoints
// and logs.json beside them.
func geminiFile(path string) bool {
	p := filepath.ToSlash(path)
	if !strings.Contains(p, "/chats/") {
		return false
	}
	base := filepath.Base(p)
	return strings.HasSuffix(base, ".jsonl") || strings.HasPrefix(base, "session-") && strings.HasSuffix(base, ".json")
}

// copilotFile: Copilot CLI's session-state/<id>/events.jsonl, and the session-state/<id>.jsonl
// of older builds.
func copilotFile(path string) bool {
	base := filepath.Base(path)
	if base == "events.jsonl" {
		return true
	}
	return strings.HasSuffix(base, ".jsonl") && filepath.Base(filepath.Dir(path)) == "session-state"
}

// cursorFile: Cursor's agent transcripts, ~/.cursor/projects/<ws>/agent-transcripts/….jsonl.
func cursorFile(path string) bool {
	return strings.Contains(filepath.ToSlash(path), "/agent-transcripts/") && strings.HasSuffix(path, ".jsonl")
}
