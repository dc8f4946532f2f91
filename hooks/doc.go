// Package hooks owns `reflect hook claude|codex|gemini|copilot|cursor|opencode`: decoding
// each host's event payloads onto reflect's events (hosts.go), dispatching SessionStart,
// UserPromptSubmit, PostToolUse, PreCompact, Stop and SessionEnd, the correction watcher,
// the answer in each host's own shape, and the contract with the hosts.
//
// The contract holds for every input and every failure: the process exits 0; stdout is
// empty or exactly one JSON object the host accepts; the work finishes inside the event's
// deadline or is abandoned (a write in flight is completed or undone by the next writer,
// never left half-done); nothing happens at all under REFLECT_INTERNAL=1. Problems go to
// .git/reflect/log, never to the agent. This package never blocks on anything slow: drain,
// sync and archiving are handed to detached processes. The lean reflect runs the captures
// itself and hands the events that need the search engine (Engine: the recall events,
// opencode's captures) to reflect-engine, within the same deadline (Options.HandOff): the
// memory's resident engine when one listens (package hooks/resident), else a child.
package hooks
