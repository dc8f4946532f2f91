package config

// DefaultFile is the reflect.toml written by `reflect init`: every shared setting, commented,
// at its default, so a person can see what there is to change.
const DefaultFile = `# reflect.toml — settings shared by every laptop that syncs this memory.
# Every key is optional; the values shown are the defaults. Whoever can push to the memory's
# remote can change this file, so it holds nothing that chooses a program, a path, a network
# endpoint or a credential: those are local to each machine (reflect config list).

[git]
# How long a write waits for another reflect process or git itself before it gives up
# (at most 10m).
lock_timeout = "10s"

[hooks]
# Deadlines of the hooks the agents run; past them a hook exits 0 with no output (at most 5s).
recall_timeout = "1s"
capture_timeout = "500ms"
# After a failed tool call, a prompt that reads as a correction within this window is
# committed at once as a low-confidence learning.
correction_window = "10m"

[queue]
# Upper bound of the condensed, redacted transcript a capture commits.
digest_max_bytes = 49152
# A Stop captures a session again only after its transcript grew by this much.
stop_growth_bytes = 32768

[recall]
# What SessionStart and UserPromptSubmit inject into the agent's context, at most.
max_learnings = 3
max_chars = 1500
# The least share (0 to 1) of a query's weight a learning must match to be injected.
min_coverage = 0.4
# Recency: a learning this old weighs three quarters, and never less than half.
half_life = "4320h"
`

// DefaultLocalFile is the .git/reflect/config.toml written by `reflect init`: the settings
// that belong to this machine alone. It is never committed, so nothing a remote holds can
// change it.
const DefaultLocalFile = `# config.toml — this machine's own reflect settings. Never committed, never synced:
# what runs here, what it may spend, who commits, where the memory syncs to.
# Change it with: reflect config set KEY VALUE (reflect config list shows every setting).

[author]
# Who this machine's commits are by. Empty: git's user.name/user.email, else user@host.
name = ""
email = ""

[drain]
# What turns queued sessions into learnings: auto (the CLI of the host that made the capture,
# claude -p or codex exec, when one is on PATH, within the caps below; else, while paused and
# at a cap, the heuristic), heuristic (offline, built in: set it to keep every session on this
# machine), claude, codex, openai:URL (an OpenAI-compatible chat-completions API: Ollama,
# llama.cpp, LM Studio, vLLM or a hosted one, e.g. openai:http://127.0.0.1:11434/v1) or
# command:/path/to/program (JSON in, JSON out).
extractor = "auto"
# Passed to claude or codex as --model when set; the model an openai: endpoint runs.
model = ""
# The environment variable that holds an openai: endpoint's API key (never the key itself).
key_env = ""
# One extractor run may take this long (at most 1h); an entry is tried this many times
# before it moves to queue/failed.
timeout = "3m"
attempts = 3
# The first wait between attempts; it doubles each time, up to a minute.
retry_wait = "2s"
# Caps on LLM use per day (estimated input tokens); 0 means no cap.
max_calls_per_day = 20
max_tokens_per_day = 500000

[sync]
# true: pull in the background when a session starts, push after a drain that learned
# something (never inside a hook's deadline). reflect sync does it by hand.
auto = false
remote = "origin"

[recall]
# Learnings another author wrote that no person has reviewed (a merge by someone else, or
# your own edit here): all, reviewed (only reviewed ones), none, or auto (all while only your
# author has written to the memory, reviewed once another has).
from_others = "auto"
# A reflect-engine stays this long after the last recall hook it answered (at most 24h), so
# that the next prompt's recall starts no process; 0: every recall starts reflect-engine.
resident = "15m"

[history]
# The history import a session's start starts stays this long without a turn (at most 1h),
# importing each turn when its Stop tells it to; 0: every Stop starts an import of its own.
watch = "5m"
`
