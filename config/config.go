// Package config owns reflect's settings and the line between the two files that hold them.
// reflect.toml, committed at the root of the knowledge repository, is shared by every laptop
// that syncs it — so whoever can push to the remote writes it: it holds only values that cannot
// choose a program, a path, an endpoint, a credential or a time-out beyond a cap (recall budgets,
// digest sizes, hook deadlines). .git/reflect/config.toml is this machine's alone, never
// committed: the extractor and its program and model, caps on LLM use, the commit author,
// automatic sync and its remote, whose learnings recall trusts. A key found in the wrong file is
// ignored with a warning; a bad value is an error naming its file, line and key. Unknown keys are
// tolerated (a newer reflect on another laptop may have added them). The package reads and edits
// settings text; it writes no file itself.
package config

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
)

// FileName is the shared settings file at the root of the knowledge repository.
const FileName = "reflect.toml"

// LocalFileName is this machine's settings file, under the repository's .git/reflect.
const LocalFileName = "config.toml"

// Config is every setting, from both files. Every field has a default (see Default).
type Config struct {
	Author Author `toml:"author"`
	Git    Git    `toml:"git"`
	Hooks  Hooks  `toml:"hooks"`
	Queue  Queue  `toml:"queue"`
	Recall Recall `toml:"recall"`
	Drain  Drain  `toml:"drain"`
	Sync   Sync   `toml:"sync"`
	// Handoff is what a session leaves for the next one (shared).
	Handoff Handoff `toml:"handoff"`
	// History is how the session history archive keeps up with a session (local).
	History History `toml:"history"`
}

// History shapes how the session history archive follows the sessions on this machine
// (local: what runs here, in the background).
type History struct {
	// Watch is how long the history import a session's start starts stays without a turn,
	// importing each turn when its Stop tells it to (two file operations) instead of the Stop
	// starting a process. 0: every Stop starts an import.
	Watch Duration `toml:"watch"`
}

// Handoff shapes the handoff a capture writes and a session start injects.
type Handoff struct {
	// Enabled: captures write the project's handoff and session starts inject it.
	Enabled bool `toml:"enabled"`
	// MaxAge is how old a handoff may be and still be injected at a session start.
	MaxAge Duration `toml:"max_age"`
	// MaxChars bounds the injected handoff block, in characters.
	MaxChars int `toml:"max_chars"`
}

// Sync says whether reflect syncs by itself (local).
type Sync struct {
	// Auto: pull in the background at SessionStart, push after a drain that learned something.
	Auto bool `toml:"auto"`
	// Remote is the remote name auto sync uses.
	Remote string `toml:"remote"`
}

// Drain shapes the worker that turns queue entries into learnings (local: it names the
// program that runs and what it may spend).
type Drain struct {
	// Extractor: auto (the default: the capturing host's CLI when one is on PATH, within the
	// caps, else the heuristic), heuristic (offline), claude, codex, openai:URL or
	// command:/path/to/program.
	Extractor string `toml:"extractor"`
	// Model is passed to claude or codex as --model when set, and names the model of an
	// openai: endpoint.
	Model string `toml:"model"`
	// KeyEnv names the environment variable holding an openai: endpoint's API key (the key
	// itself is never written in a settings file); empty: the endpoint needs none.
	KeyEnv string `toml:"key_env"`
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
	// FromOthers (local) decides whether learnings another author wrote, that no person has
	// reviewed, are injected: all, reviewed, none, or auto (all while only this machine's
	// author has written to the memory, reviewed once another has).
	FromOthers string `toml:"from_others"`
	// Resident (local) is how long a reflect-engine stays after the last recall hook it
	// answered, to answer the next one without a start-up (package hooks/resident); 0: every
	// recall hook starts reflect-engine.
	Resident Duration `toml:"resident"`
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

// Author names who this machine's commits are by (local: a synced name would make every
// laptop sign as one). Empty fields fall back to git's own config (the repository's, then
// the user's), then to user@host.
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

// The values recall.from_others takes.
const (
	FromOthersAuto     = "auto"
	FromOthersReviewed = "reviewed"
	FromOthersAll      = "all"
	FromOthersNone     = "none"
)

// Default returns the settings used for every key the files do not set.
func Default() Config {
	return Config{
		Git: Git{LockTimeout: Duration(10 * time.Second)},
		Hooks: Hooks{
			RecallTimeout:    Duration(time.Second),
			CaptureTimeout:   Duration(500 * time.Millisecond),
			CorrectionWindow: Duration(10 * time.Minute),
		},
		Queue: Queue{DigestMaxBytes: 48 << 10, StopGrowthBytes: 32 << 10},
		Recall: Recall{MaxLearnings: 3, MaxChars: 1500, MinCoverage: 0.4, HalfLife: Duration(180 * 24 * time.Hour),
			FromOthers: FromOthersAuto, Resident: Duration(15 * time.Minute)},
		Drain: Drain{Extractor: "auto", Timeout: Duration(3 * time.Minute), Attempts: 3, RetryWait: Duration(2 * time.Second),
			MaxCallsPerDay: 20, MaxTokensPerDay: 500_000},
		Sync:    Sync{Remote: "origin"},
		Handoff: Handoff{Enabled: true, MaxAge: Duration(7 * 24 * time.Hour), MaxChars: 1200},
		History: History{Watch: Duration(5 * time.Minute)},
	}
}

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

// Error is a problem with one key of a settings file.
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
		if b.Len() > 0 {
			b.WriteString(": ")
		}
		fmt.Fprintf(&b, "key %s", e.Key)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// A Warning is a key that was ignored: a local setting in the shared file, or a shared one
// in the local file.
type Warning struct {
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
	Key  string `json:"key"`
	Msg  string `json:"message"`
}

func (w Warning) String() string {
	if w.Line > 0 {
		return fmt.Sprintf("%s:%d: key %s: %s", w.File, w.Line, w.Key, w.Msg)
	}
	return fmt.Sprintf("%s: key %s: %s", w.File, w.Key, w.Msg)
}

// Load reads the shared file and then the local one over it; a missing file gives the
// defaults for its keys. On an error (a file that does not parse or a bad value) the
// returned Config still holds usable settings — the defaults for the bad file's keys — so a
// hook or a sync can go on while the error is reported.
func Load(sharedPath, localPath string) (Config, []Warning, error) {
	cfg := Default()
	var warnings []Warning
	var errs []error
	for _, f := range []struct {
		path  string
		scope Scope
	}{{sharedPath, Shared}, {localPath, Local}} {
		if f.path == "" {
			continue
		}
		data, err := os.ReadFile(f.path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("read settings: %w", err))
			continue
		}
		if isTemplate(f.scope, data) {
			continue // the file as reflect init wrote it says the defaults, which cfg holds
		}
		w, err := decode(&cfg, f.scope, f.path, data)
		warnings = append(warnings, w...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return cfg, warnings, errors.Join(errs...)
}

// isTemplate says whether data is the file of scope as reflect init writes it, unedited, whose
// values are the defaults (TestParseShared and TestParseLocal hold them so): every hook loads
// both files, and decoding them cold was ~0.15 ms of a capture hook's ~0.5 ms of own work
// (perf: config.Load 4.3% of a Stop hook's samples; BenchmarkLoad 31 us warm).
func isTemplate(scope Scope, data []byte) bool {
	if scope == Shared {
		return string(data) == DefaultFile
	}
	return string(data) == DefaultLocalFile || string(data) == earlierLocalFile
}

// earlierLocalFile is DefaultLocalFile as init wrote it before a hand edit stopped counting as
// a review (its comment on recall.from_others): the same defaults, still skipped.
var earlierLocalFile = strings.Replace(DefaultLocalFile,
	"(a merge by someone else, or\n# your own edit here)", "(a hand edit, or a merge by\n# someone else)", 1)

// ParseShared decodes the shared file's data (path is used in messages) over the defaults
// and validates it. Local keys in it are ignored and returned as warnings.
func ParseShared(path string, data []byte) (Config, []Warning, error) {
	cfg := Default()
	w, err := decode(&cfg, Shared, path, data)
	return cfg, w, err
}

// ParseLocal decodes a local file's data over the defaults and validates it.
func ParseLocal(path string, data []byte) (Config, []Warning, error) {
	cfg := Default()
	w, err := decode(&cfg, Local, path, data)
	return cfg, w, err
}

// decode sets cfg's keys of scope from data. On an error cfg keeps what it held for them.
func decode(cfg *Config, scope Scope, path string, data []byte) ([]Warning, error) {
	var present map[string]any
	if err := toml.Unmarshal(data, &present); err != nil {
		return nil, decodeError(path, err)
	}
	lines := keyLines(data)
	var warnings []Warning
	for _, k := range flatten(present, "") {
		spec, known := lookupKey(k)
		switch {
		case !known:
		case spec.Scope != scope && scope == Shared:
			warnings = append(warnings, Warning{File: path, Line: lines[k], Key: k,
				Msg: fmt.Sprintf("is local to each machine, so a shared file may not set it: ignored (reflect config set %s VALUE sets it on this machine)", k)})
		case spec.Scope != scope:
			warnings = append(warnings, Warning{File: path, Line: lines[k], Key: k,
				Msg: fmt.Sprintf("is shared by every laptop: it belongs in %s (reflect config set %s VALUE); ignored here", FileName, k)})
		case spec.dur:
			// the decoder would set a duration's nanoseconds from a bare number: 5000 read as
			// 5µs, a recall that always gave up
			if _, ok := valueAt(present, k).(string); !ok {
				return warnings, &Error{File: path, Line: lines[k], Key: k, Msg: fmt.Sprintf("not a duration like \"500ms\" or \"10s\" (got %v, not a quoted string)", valueAt(present, k))}
			}
		}
	}
	next := *cfg
	if err := toml.Unmarshal(data, view(&next, scope)); err != nil {
		return warnings, decodeError(path, err)
	}
	if err := next.validate(scope); err != nil {
		err.File, err.Line = path, lines[err.Key]
		return warnings, err
	}
	*cfg = next
	return warnings, nil
}

// valueAt is the value of dotted key k in a decoded file.
func valueAt(m map[string]any, k string) any {
	sec, name, ok := strings.Cut(k, ".")
	if !ok {
		return m[k]
	}
	sub, _ := m[sec].(map[string]any)
	return valueAt(sub, name)
}

// view is the part of cfg one file may set; keys outside it are left alone by the decoder.
func view(cfg *Config, scope Scope) any {
	if scope == Shared {
		return &struct {
			Git     *Git     `toml:"git"`
			Hooks   *Hooks   `toml:"hooks"`
			Queue   *Queue   `toml:"queue"`
			Recall  *shared  `toml:"recall"`
			Handoff *Handoff `toml:"handoff"`
		}{&cfg.Git, &cfg.Hooks, &cfg.Queue, &shared{&cfg.Recall.MaxLearnings, &cfg.Recall.MaxChars, &cfg.Recall.MinCoverage, &cfg.Recall.HalfLife}, &cfg.Handoff}
	}
	return &struct {
		Author  *Author  `toml:"author"`
		Drain   *Drain   `toml:"drain"`
		Sync    *Sync    `toml:"sync"`
		Recall  *local   `toml:"recall"`
		History *History `toml:"history"`
	}{&cfg.Author, &cfg.Drain, &cfg.Sync, &local{&cfg.Recall.FromOthers, &cfg.Recall.Resident}, &cfg.History}
}

// shared and local split [recall] between the files.
type shared struct {
	MaxLearnings *int      `toml:"max_learnings"`
	MaxChars     *int      `toml:"max_chars"`
	MinCoverage  *float64  `toml:"min_coverage"`
	HalfLife     *Duration `toml:"half_life"`
}

type local struct {
	FromOthers *string   `toml:"from_others"`
	Resident   *Duration `toml:"resident"`
}

func decodeError(path string, err error) *Error {
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, _ := de.Position()
		return &Error{File: path, Line: row, Key: strings.Join(de.Key(), "."), Msg: de.Error()}
	}
	return &Error{File: path, Msg: err.Error()}
}

// Caps on what a file may set. A shared file is written by whoever can push to the remote, so
// every time-out it holds is bounded: recall_timeout = "10m" once made a prompt hook block for
// 19.7 s. The hosts' own hook time-outs are longer (Claude Code 60 s, Codex 600 s), but an
// agent waiting more than a few seconds for a memory is an agent hurt by it.
const (
	maxHookTimeout     = 5 * time.Second
	maxCorrection      = 24 * time.Hour
	maxLockTimeout     = 10 * time.Minute
	maxHalfLife        = 100 * 365 * 24 * time.Hour
	minHalfLife        = time.Hour
	maxDigestBytes     = 1 << 20
	maxStopGrowthBytes = 1 << 30
	maxRecallChars     = 20_000
	maxDrainTimeout    = time.Hour
	maxRetryWait       = time.Minute
	maxHistoryWatch    = time.Hour
	maxResident        = 24 * time.Hour
	maxHandoffAge      = 365 * 24 * time.Hour
)

// validate checks the keys of scope; the error's File and Line are filled by the caller.
func (c Config) validate(scope Scope) *Error {
	bad := func(key, format string, args ...any) *Error {
		return &Error{Key: key, Msg: fmt.Sprintf(format, args...)}
	}
	type bound struct {
		key      string
		d        Duration
		min, max time.Duration
	}
	var bounds []bound
	if scope == Shared {
		bounds = []bound{
			{"git.lock_timeout", c.Git.LockTimeout, 0, maxLockTimeout},
			{"hooks.recall_timeout", c.Hooks.RecallTimeout, 0, maxHookTimeout},
			{"hooks.capture_timeout", c.Hooks.CaptureTimeout, 0, maxHookTimeout},
			{"hooks.correction_window", c.Hooks.CorrectionWindow, 0, maxCorrection},
			{"recall.half_life", c.Recall.HalfLife, minHalfLife, maxHalfLife},
			{"handoff.max_age", c.Handoff.MaxAge, time.Hour, maxHandoffAge},
		}
	} else {
		bounds = []bound{
			{"drain.timeout", c.Drain.Timeout, 0, maxDrainTimeout},
			{"drain.retry_wait", c.Drain.RetryWait, 0, maxRetryWait},
		}
	}
	for _, b := range bounds {
		switch {
		case b.d.Std() == 0:
			return bad(b.key, "must be greater than zero")
		case b.d.Std() < b.min:
			return bad(b.key, "must be at least %v (got %v)", b.min, b.d.Std())
		case b.d.Std() > b.max:
			return bad(b.key, "must be at most %v (got %v)", b.max, b.d.Std())
		}
	}
	if scope == Shared {
		switch {
		case c.Queue.DigestMaxBytes < 1024 || c.Queue.DigestMaxBytes > maxDigestBytes:
			return bad("queue.digest_max_bytes", "must be between 1024 and %d (got %d)", maxDigestBytes, c.Queue.DigestMaxBytes)
		case c.Queue.StopGrowthBytes < 0 || c.Queue.StopGrowthBytes > maxStopGrowthBytes:
			return bad("queue.stop_growth_bytes", "must be between 0 and %d (got %d)", maxStopGrowthBytes, c.Queue.StopGrowthBytes)
		case c.Recall.MaxLearnings < 0 || c.Recall.MaxLearnings > 20:
			return bad("recall.max_learnings", "must be between 0 and 20 (got %d)", c.Recall.MaxLearnings)
		case c.Recall.MaxChars < 200 || c.Recall.MaxChars > maxRecallChars:
			return bad("recall.max_chars", "must be between 200 and %d (got %d)", maxRecallChars, c.Recall.MaxChars)
		case c.Recall.MinCoverage < 0 || c.Recall.MinCoverage > 1:
			return bad("recall.min_coverage", "must be between 0 and 1 (got %v)", c.Recall.MinCoverage)
		case c.Handoff.MaxChars < 200 || c.Handoff.MaxChars > maxRecallChars:
			return bad("handoff.max_chars", "must be between 200 and %d (got %d)", maxRecallChars, c.Handoff.MaxChars)
		}
		return nil
	}
	switch e := c.Drain.Extractor; {
	case strings.ContainsAny(c.Author.Name, "<>\n\r\x00"):
		// what would split or end a commit's author line: git fsck, and a remote that checks
		// what is pushed, refuse such a commit
		return bad("author.name", "must not hold <, >, a line break or a NUL (got %q)", c.Author.Name)
	case strings.ContainsAny(c.Author.Email, "<>\n\r\x00 "):
		return bad("author.email", "not an e-mail address: %q", c.Author.Email)
	case c.Author.Email != "" && !strings.Contains(c.Author.Email, "@"):
		return bad("author.email", "not an e-mail address: %q", c.Author.Email)
	case CheckExtractor(e) != nil:
		return bad("drain.extractor", "%v", CheckExtractor(e))
	case c.Drain.KeyEnv != "" && !validEnvName(c.Drain.KeyEnv):
		return bad("drain.key_env", "must name an environment variable, like OPENAI_API_KEY (got %q)", c.Drain.KeyEnv)
	case c.Drain.Attempts < 1 || c.Drain.Attempts > 20:
		return bad("drain.attempts", "must be between 1 and 20 (got %d)", c.Drain.Attempts)
	case c.Drain.MaxCallsPerDay < 0:
		return bad("drain.max_calls_per_day", "must not be negative")
	case c.Drain.MaxTokensPerDay < 0:
		return bad("drain.max_tokens_per_day", "must not be negative")
	case c.Sync.Remote == "" || strings.ContainsAny(c.Sync.Remote, " \t/\\:"):
		return bad("sync.remote", "must be a remote name like origin (got %q)", c.Sync.Remote)
	case c.History.Watch < 0 || c.History.Watch.Std() > maxHistoryWatch:
		return bad("history.watch", "must be between 0 (off) and %v (got %v)", maxHistoryWatch, c.History.Watch.Std())
	case c.Recall.Resident < 0 || c.Recall.Resident.Std() > maxResident:
		return bad("recall.resident", "must be between 0 (off) and %v (got %v)", maxResident, c.Recall.Resident.Std())
	}
	switch c.Recall.FromOthers {
	case FromOthersAuto, FromOthersReviewed, FromOthersAll, FromOthersNone:
	default:
		return bad("recall.from_others", "must be auto, reviewed, all or none (got %q)", c.Recall.FromOthers)
	}
	return nil
}

// CheckExtractor says whether name is an extractor reflect can run: heuristic, claude,
// codex, command:PATH or openai:URL (an http(s) URL without a password in it).
func CheckExtractor(name string) error {
	switch {
	case name == "auto", name == "heuristic", name == "claude", name == "codex":
		return nil
	case strings.HasPrefix(name, "command:") && len(name) > len("command:"):
		return nil
	case strings.HasPrefix(name, "openai:"):
		u, err := url.Parse(strings.TrimPrefix(name, "openai:"))
		switch {
		case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
			return fmt.Errorf("openai: takes the http(s) URL of an OpenAI-compatible API, e.g. openai:http://127.0.0.1:11434/v1 (got %q)", name)
		case u.User != nil:
			return fmt.Errorf("openai: the URL must not hold a user or password; put the key in an environment variable and name it in drain.key_env")
		}
		return nil
	}
	return fmt.Errorf("must be auto, heuristic, claude, codex, openai:URL or command:PATH (got %q)", name)
}

// validEnvName: a variable name a shell can export.
func validEnvName(s string) bool {
	for i, r := range s {
		if !(r == '_' || 'A' <= r && r <= 'Z' || 'a' <= r && r <= 'z' || i > 0 && '0' <= r && r <= '9') {
			return false
		}
	}
	return s != ""
}
