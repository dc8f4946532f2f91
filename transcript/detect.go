package transcript

import (
	"bytes"
	"path/filepath"
	"strings"
)

// Detect tells which agent wrote a transcript from one of its lines, normally the first
// that parses. It reports false for lines that do not say: invalid JSON, non-objects, and
// objects neither format has.
func Detect(firstLine []byte) (Harness, bool) {
	line := trimBOM(bytes.TrimSpace(firstLine))
	s := scanner{b: line}
	if s.peek() != '{' {
		return "", false
	}
	var t, recordType string
	var payload, id, timestamp, sessionID, uuid, claudeKey bool
	var geminiKey, content, role, message, data bool
	it := s.object()
	for k, more := it.next(); more; k, more = it.next() {
		key := string(k)
		switch key {
		case "type":
			t, _ = s.str()
			continue
		case "record_type":
			recordType, _ = s.str()
			continue
		}
		set := s.peek() != 'n'
		s.skip()
		switch key {
		case "payload":
			payload = set
		case "id":
			id = set
		case "timestamp":
			timestamp = set
		case "sessionId":
			sessionID = set
		case "uuid":
			uuid = set
		case "parentUuid", "leafUuid":
			claudeKey = true
		case "projectHash", "$set", "$rewindTo":
			geminiKey = true
		case "content":
			content = set
		case "role":
			role = set
		case "message":
			message = set
		case "data":
			data = set
		}
	}
	if !s.atEnd() {
		return "", false
	}
	switch {
	case strings.HasPrefix(t, "opencode."):
		return HarnessOpencode, true
	case geminiKey || t == "gemini" || geminiTypes[t] && id && content && !message && !uuid && !sessionID:
		return HarnessGemini, true
	case data && strings.Contains(t, ".") && !payload:
		return HarnessCopilot, true
	case t == "" && role && message && !uuid || t == "turn_ended":
		return HarnessCursor, true
	case payload && (codexEnvelopeTypes[t] || timestamp):
		return HarnessCodex, true
	case t == "" && recordType != "":
		return HarnessCodex, true
	case t == "" && id && timestamp && !sessionID:
		return HarnessCodex, true // the pre-envelope session header
	case codexItemTypes[t] && !sessionID && !uuid:
		return HarnessCodex, true // a bare pre-envelope item
	case claudeTypes[t]:
		return HarnessClaude, true
	case sessionID || uuid || claudeKey:
		return HarnessClaude, true
	}
	return "", false
}

// geminiTypes are the message types of a Gemini CLI session line (§E.7); "gemini" names
// only Gemini's.
var geminiTypes = map[string]bool{"user": true, "info": true, "error": true, "warning": true}

// codexEnvelopeTypes are the RolloutItem tags of the envelope format.
var codexEnvelopeTypes = map[string]bool{
	"session_meta": true, "response_item": true, "event_msg": true, "turn_context": true,
	"compacted": true,
}

// codexItemTypes are ResponseItem tags, which the pre-envelope format writes bare.
var codexItemTypes = map[string]bool{
	"message": true, "reasoning": true, "function_call": true, "function_call_output": true,
	"custom_tool_call": true, "custom_tool_call_output": true, "local_shell_call": true,
	"web_search_call": true, "compacted": true,
}

// claudeTypes are the record types of §C.2, conversation and metadata.
var claudeTypes = map[string]bool{
	"user": true, "assistant": true, "system": true, "attachment": true, "progress": true,
	"summary": true, "file-history-snapshot": true, "queue-operation": true,
	"custom-title": true, "ai-title": true, "agent-name": true, "last-prompt": true,
	"permission-mode": true, "mode": true, "pr-link": true, "frame-link": true,
	"worktree-state": true, "relocated": true, "bridge-session": true,
}

// harnessFromPath guesses the harness from where the file lives and how it is named.
func harnessFromPath(path string) (Harness, bool) {
	p := filepath.ToSlash(path)
	base := filepath.Base(path)
	switch {
	case strings.Contains(p, "/.gemini/") || strings.HasPrefix(base, "session-") && strings.HasSuffix(base, ".json"):
		return HarnessGemini, true
	case strings.Contains(p, "/.copilot/session-state/"):
		return HarnessCopilot, true
	case strings.Contains(p, "/agent-transcripts/"):
		return HarnessCursor, true
	case strings.Contains(p, "/.codex/") || strings.HasPrefix(base, "rollout-"):
		return HarnessCodex, true
	case strings.Contains(p, "/.claude/") || strings.Contains(p, "/subagents/") ||
		strings.HasPrefix(base, "agent-") || isUUID(strings.TrimSuffix(base, ".jsonl")):
		return HarnessClaude, true
	}
	return "", false
}

// hints are what a file's path says about its session.
type hints struct {
	// sidechain: a Claude subagent file (agent-*.jsonl, or under <session>/subagents/).
	sidechain bool
	// id: the session id the file name carries (Claude <uuid>.jsonl, Codex
	// rollout-<time>-<uuid>.jsonl), used when no record gives one.
	id string
}

func hintsFromPath(path string) hints {
	p := filepath.ToSlash(path)
	base := filepath.Base(path)
	name := strings.TrimSuffix(base, ".jsonl")
	var h hints
	if strings.Contains(p, "/.copilot/session-state/") && base == "events.jsonl" {
		name = filepath.Base(filepath.Dir(path)) // session-state/<id>/events.jsonl
	}
	if strings.HasPrefix(base, "agent-") || strings.Contains(p, "/subagents/") {
		h.sidechain = true
	}
	switch {
	case strings.HasPrefix(name, "rollout-") && len(name) >= 36 && isUUID(name[len(name)-36:]):
		h.id = name[len(name)-36:]
	case isUUID(name):
		h.id = name
	}
	return h
}

// isUUID reports whether s has the 8-4-4-4-12 hex shape.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}
