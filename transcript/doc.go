// Package transcript reads the session files that Claude Code
// (~/.claude/projects/<enc-cwd>/<session>.jsonl and its subagent files) and Codex CLI
// (~/.codex/sessions/…/rollout-*.jsonl, envelope and pre-envelope formats), Gemini CLI
// (~/.gemini/tmp/<slug>/chats/session-*.jsonl, and the single-JSON session-*.json before
// v0.39), GitHub Copilot CLI (~/.copilot/session-state/<id>/events.jsonl) and Cursor
// (~/.cursor/projects/<ws>/agent-transcripts/…/<id>.jsonl) write, into one
// model: a Session of Messages with roles, kinds, tool calls joined to their results, exit
// codes, and the byte offset of every line so that a later read can resume where this one
// stopped.
//
// It never writes anything, and it never redacts: the text it returns is the host's text,
// secrets included, and keeping secrets out of git is transcript/redact's job. It reads one
// line at a time and keeps only the decoded messages, never the file and never a second copy
// of it; a line of several MB is normal (tool output, session_meta instructions), one over
// MaxLine (16 MB) is read past without being kept. Bad input is counted and skipped, never
// fatal: the only errors are I/O errors.
package transcript
