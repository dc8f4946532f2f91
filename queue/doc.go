// Package queue owns pending captures: one JSON file per captured session under queue/ in
// the knowledge repository, committed as it is written, holding the session's metadata and a
// condensed, redacted digest of its transcript (user prompts, assistant conclusions, failed
// tool calls and what followed, hook feedback, and each subagent's part of the turn; the
// note kinds are in docs/ARCHITECTURE.md), so any laptop can drain it. It also keeps the per-session
// marks (local, under .git/reflect/state) that decide when a session is enqueued again.
//
// It never writes a byte that has not been through transcript/redact, never copies a raw
// transcript into git, and never turns an entry into learnings (that is the drain's job).
package queue
