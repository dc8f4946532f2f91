// Package config owns reflect.toml: the settings committed at the root of the knowledge
// repository and shared by every laptop that syncs it. It defines every setting with a
// documented default, parses the file strictly enough that a bad value is an error naming
// its key, and tolerates unknown keys (a newer reflect on another laptop may have added them).
// It never writes the file except to produce the default one for `reflect init`.
package config

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
)

// FileName is the settings file at the root of the knowledge repository.
const FileName = "reflect.toml"

// Config is the whole of reflect.toml. Every field has a default (see Default).
type Config struct {
	Author Author `toml:"author"`
	Git    Git    `toml:"git"`
	Hooks  Hooks  `toml:"hooks"`
	Queue  Queue  `toml:"queue"`
	Recall Recall `toml:"recall"`
	Drain  Drain  `toml:"drain"`
	Sync   Sync   `toml:"sync"`
}

// Sync says whether reflect syncs by itself.
type Sync struct {
	// Auto: pull in the background at SessionStart, push after a drain that learned something.
	Auto bool `toml:"auto"`
	// Remote is the remote name auto sync uses.
	Remote string `toml:"remote"`
}

// Drain shapes the worker that turns queue entries into learnings.
type Drain struct {
	// Extractor: heuristic (offline, the default), claude, codex or command:/path/to/program.
	Extractor string `toml:"extractor"`
	// Model is passed to claude or codex as --model when set.
	Model string `toml:"model"`
	// Timeout bounds one extractor run.
	Timeout Duration `toml:"timeout"`
	// Attempts is how many times one entry is tried before it moves to queue/failed.
	Attempts int `toml:"attempts"`
	// RetryWait is the first wait between attempts; it doubles each time, up to a minute.
	RetryWait Duration `toml:"retry_wait"`
	// MaxCallsPerDay and MaxTokensPerDay cap LLM use (estimated input tokens); 0: no cap.
	MaxCallsPerDay  int `toml:"max_calls_per_day"`
	MaxTokensPerDay int `toml:"max_tokens_per_day"`
}

// Recall bounds what SessionStart and UserPromptSubmit inject into an agent's context.
type Recall struct {
	// MaxLearnings is the most learnings one hook injects.
	MaxLearnings int `toml:"max_learnings"`
	// MaxChars bounds the whole injected block, in characters.
	MaxChars int `toml:"max_chars"`
	// MinCoverage is the least share (0–1) of the query's weight a learning must match
	// to be injected: below it a learning shares only a common word with the prompt.
	MinCoverage float64 `toml:"min_coverage"`
	// HalfLife is the age at which recency halves the weight of a learning (down to
	// half its weight, never less: an old rule still counts).
	HalfLife Duration `toml:"half_life"`
}

// Hooks holds the deadlines of `reflect hook`: past them a hook gives up and exits 0 with no
// output, so the agent is never held up.
type Hooks struct {
	RecallTimeout  Duration `toml:"recall_timeout"`  // SessionStart, UserPromptSubmit
	CaptureTimeout Duration `toml:"capture_timeout"` // PostToolUse, PreCompact, Stop, SessionEnd
	// CorrectionWindow is how long after a failed tool call a correcting prompt is captured.
	CorrectionWindow Duration `toml:"correction_window"`
}

// Queue shapes the captures the hooks commit.
type Queue struct {
	// DigestMaxBytes bounds the condensed transcript an entry carries.
	DigestMaxBytes int `toml:"digest_max_bytes"`
	// StopGrowthBytes is how much a transcript must grow after its last capture before a
	// Stop captures it again (PreCompact and SessionEnd always capture).
	StopGrowthBytes int `toml:"stop_growth_bytes"`
}

// Author names who reflect's commits are by. Empty fields fall back to git's own config
// (the repository's, then the user's), then to user@host.
type Author struct {
	Name  string `toml:"name"`
	Email string `toml:"email"`
}

// Git holds the settings of reflect's own writes to the repository.
type Git struct {
	// LockTimeout bounds how long a command waits for another reflect process (or git
	// itself) to finish writing before it gives up with "repository busy".
	LockTimeout Duration `toml:"lock_timeout"`
}

// Default returns the settings used for every key the file does not set.
func Default() Config {
	return Config{
		Git: Git{LockTimeout: Duration(10 * time.Second)},
		Hooks: Hooks{
			RecallTimeout:    Duration(time.Second),
			CaptureTimeout:   Duration(500 * time.Millisecond),
			CorrectionWindow: Duration(10 * time.Minute),
		},
		Queue:  Queue{DigestMaxBytes: 48 << 10, StopGrowthBytes: 32 << 10},
		Recall: Recall{MaxLearnings: 3, MaxChars: 1500, MinCoverage: 0.4, HalfLife: Duration(180 * 24 * time.Hour)},
		Drain: Drain{Extractor: "heuristic", Timeout: Duration(3 * time.Minute), Attempts: 3, RetryWait: Duration(2 * time.Second),
			MaxCallsPerDay: 40, MaxTokensPerDay: 1_000_000},
		Sync: Sync{Remote: "origin"},
	}
}

// DefaultFile is the reflect.toml written by `reflect init`: every setting, commented, at its
// default, so a person can see what there is to change.
const DefaultFile = `# reflect.toml — settings shared by every laptop that syncs this memory.
# Every key is optional; the values shown are the defaults.

[author]
# Who reflect's commits are by. Empty: git's user.name/user.email, else user@host.
name = ""
email = ""

[git]
# How long a write waits for another reflect process or git itself before it gives up.
lock_timeout = "10s"

[hooks]
# Deadlines of the hooks the agents run; past them a hook exits 0 with no output.
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

[drain]
# What turns queued sessions into learnings: heuristic (offline, built in), claude
# (claude -p), codex (codex exec) or command:/path/to/program (JSON in, JSON out).
extractor = "heuristic"
# Passed to claude or codex as --model when set.
model = ""
# One extractor run may take this long; an entry is tried this many times before it
# moves to queue/failed.
timeout = "3m"
attempts = 3
# The first wait between attempts; it doubles each time, up to a minute.
retry_wait = "2s"
# Caps on LLM use per day (estimated input tokens); 0 means no cap.
max_calls_per_day = 40
max_tokens_per_day = 1000000

[sync]
# true: pull in the background when a session starts, push after a drain that learned
# something (never inside a hook's deadline). reflect sync does it by hand.
auto = false
remote = "origin"
`

// Duration is a time.Duration written in TOML as a string such as "500ms" or "10s".
type Duration time.Duration

// Std returns the value as a time.Duration.
func (d Duration) Std() time.Duration { return time.Duration(d) }

// UnmarshalText parses "500ms", "2s", "1m30s".
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("not a duration like \"500ms\" or \"10s\": %q", b)
	}
	if v < 0 {
		return fmt.Errorf("must not be negative: %q", b)
	}
	*d = Duration(v)
	return nil
}

// MarshalText writes the duration the way UnmarshalText reads it.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// Error is a problem with one key of reflect.toml.
type Error struct {
	File string
	Line int    // 0 when unknown
	Key  string // dotted, e.g. "git.lock_timeout"; empty for a syntax error
	Msg  string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Key != "" {
		fmt.Fprintf(&b, ": key %s", e.Key)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// Load reads path; a missing file gives the defaults.
func Load(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return Default(), nil
	}
	if err != nil {
		return Config{}, fmt.Errorf("read settings: %w", err)
	}
	return Parse(path, data)
}

// Parse decodes data (the contents of the file named by path, used in errors) over the
// defaults and validates the result.
func Parse(path string, data []byte) (Config, error) {
	cfg := Default()
	if err := toml.Unmarshal(data, &cfg); err != nil {
		return Config{}, decodeError(path, err)
	}
	if err := cfg.validate(path); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

func decodeError(path string, err error) error {
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, _ := de.Position()
		return &Error{File: path, Line: row, Key: strings.Join(de.Key(), "."), Msg: de.Error()}
	}
	return &Error{File: path, Msg: err.Error()}
}

func (c Config) validate(path string) error {
	if c.Author.Email != "" && !strings.Contains(c.Author.Email, "@") {
		return &Error{File: path, Key: "author.email", Msg: fmt.Sprintf("not an e-mail address: %q", c.Author.Email)}
	}
	for key, d := range map[string]Duration{
		"git.lock_timeout": c.Git.LockTimeout, "hooks.recall_timeout": c.Hooks.RecallTimeout,
		"hooks.capture_timeout": c.Hooks.CaptureTimeout, "hooks.correction_window": c.Hooks.CorrectionWindow,
		"recall.half_life": c.Recall.HalfLife, "drain.timeout": c.Drain.Timeout, "drain.retry_wait": c.Drain.RetryWait,
	} {
		if d.Std() == 0 {
			return &Error{File: path, Key: key, Msg: "must be greater than zero"}
		}
	}
	if c.Queue.DigestMaxBytes < 1024 {
		return &Error{File: path, Key: "queue.digest_max_bytes", Msg: fmt.Sprintf("must be at least 1024 (got %d)", c.Queue.DigestMaxBytes)}
	}
	if c.Recall.MaxLearnings < 0 || c.Recall.MaxLearnings > 20 {
		return &Error{File: path, Key: "recall.max_learnings", Msg: fmt.Sprintf("must be between 0 and 20 (got %d)", c.Recall.MaxLearnings)}
	}
	if c.Recall.MaxChars < 200 {
		return &Error{File: path, Key: "recall.max_chars", Msg: fmt.Sprintf("must be at least 200 (got %d)", c.Recall.MaxChars)}
	}
	if c.Recall.MinCoverage < 0 || c.Recall.MinCoverage > 1 {
		return &Error{File: path, Key: "recall.min_coverage", Msg: fmt.Sprintf("must be between 0 and 1 (got %v)", c.Recall.MinCoverage)}
	}
	if e := c.Drain.Extractor; e != "heuristic" && e != "claude" && e != "codex" && !(strings.HasPrefix(e, "command:") && len(e) > len("command:")) {
		return &Error{File: path, Key: "drain.extractor", Msg: fmt.Sprintf("must be heuristic, claude, codex or command:PATH (got %q)", e)}
	}
	if c.Drain.Attempts < 1 || c.Drain.Attempts > 20 {
		return &Error{File: path, Key: "drain.attempts", Msg: fmt.Sprintf("must be between 1 and 20 (got %d)", c.Drain.Attempts)}
	}
	if c.Drain.MaxCallsPerDay < 0 {
		return &Error{File: path, Key: "drain.max_calls_per_day", Msg: "must not be negative"}
	}
	if c.Drain.MaxTokensPerDay < 0 {
		return &Error{File: path, Key: "drain.max_tokens_per_day", Msg: "must not be negative"}
	}
	if c.Queue.StopGrowthBytes < 0 {
		return &Error{File: path, Key: "queue.stop_growth_bytes", Msg: "must not be negative"}
	}
	return nil
}
