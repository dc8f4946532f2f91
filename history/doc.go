// Package history is the local archive of past agent sessions (Claude Code, Codex, Gemini
// CLI, Copilot CLI, Cursor, and opencode through its mirrors) and the
// evidence search over it: `reflect history import` reads transcripts incrementally into
// per-session message stores and a bleve index under .git/reflect/history/, and a search
// answers a needle with windows of the original messages around each hit, grouped by
// session.
//
// Everything it writes stays on this machine and outside git: the stores are the archive
// (transcripts age out of the hosts' folders; the stores keep them), the index is a cache
// rebuilt from the stores when it is missing. Every byte that reaches a store or the index
// has been through transcript/redact first. It never runs an LLM and never summarises: what
// it returns is the evidence itself, cut to budgets.
package history
