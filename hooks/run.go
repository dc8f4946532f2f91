package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/reflect-memory/reflect/config"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/handoff"
	historywatch "github.com/reflect-memory/reflect/history/watch"
	indexlayout "github.com/reflect-memory/reflect/index/layout"
	"github.com/reflect-memory/reflect/queue"
	"github.com/reflect-memory/reflect/team"
	"github.com/reflect-memory/reflect/workspace"
)

// Options are what `reflect hook` passes in.
type Options struct {
	Harness string // the host: claude, codex, gemini, copilot or cursor, from the installed command line
	// Event is the event named on the command line (`reflect hook copilot sessionStart`):
	// Copilot CLI's camelCase payloads carry none.
	Event  string
	Home   string // the knowledge repository
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer // only with Debug
	Debug  bool
	Now    func() time.Time
	// Background starts `reflect ARGS…` detached, for work that must not hold up the host
	// (refilling the file pool now; drain and sync later). Nil: no background work.
	Background func(args ...string)
	// Engine answers the recall events and reads opencode's database in this process
	// (reflect-engine). Nil in the lean reflect.
	Engine *Engine
	// HandOff runs this hook in reflect-engine (a resident one, else a child) and returns
	// what it printed; ctx carries the event's deadline. The lean reflect sets it (and no
	// Engine): the events that need the engine (NeedsEngine) are handed off whole.
	HandOff func(ctx context.Context, h Handed) ([]byte, error)
	// Began is when the hook began, when that was in another process (a resident engine
	// answers a hook the lean reflect read): the deadline counts from it. Zero: now.
	Began time.Time
	// Resident: a resident engine answers this hook (last-event.json says so). Run then waits
	// for a handler past its deadline (the next hook changes the process's environment and
	// directory) and opens its log for each line.
	Resident bool
	// Late: this is a capture a hook gave up on at its deadline, run again detached (`reflect
	// internal late-hook`) under LateDeadline; it hands on nothing more.
	Late bool
	// Answered, when set, takes work that may wait until the hook has answered, which a
	// resident engine does after writing the answer and before it starts the hook's
	// background work; nil: such work is done at once.
	Answered func(func())
}

// Handed is a hook the lean reflect hands to reflect-engine.
type Handed struct {
	Payload []byte    // its standard input
	Began   time.Time // when it began: its deadline counts from there
	Debug   bool      // Options.Debug: the engine's stderr is the hook's
	// StateDir is the memory's state directory (.git/reflect), where resident engines listen.
	StateDir string
	// Resident is recall.resident: how long a reflect-engine started for it may stay to answer
	// the next one (package hooks/resident); 0: none stays.
	Resident time.Duration
	// Afterwards starts `reflect ARGS…` on the memory, detached, once the hook has printed
	// what it prints.
	Afterwards func(args ...string)
}

// maxPayload bounds what a hook reads from stdin. The largest payloads hosts send are a
// UserPromptSubmit with a pasted prompt and a PostToolUse with a tool's output (which the
// hosts truncate for the model; Codex's rollouts record a 10,000-token policy). With the
// former bound of 32 MB, a prompt hook fed 30 MB of prose took 1.47 s and 730 MB RSS (its
// deadline is 1 s), and a 3.9 MB one still took 0.73 s. A larger payload is read to its end
// and thrown away, unparsed.
const maxPayload = 4 << 20

// grace is how long past its deadline a handler may take to finish a write it has started.
const grace = 150 * time.Millisecond

// Output is the one JSON object a hook may print. Claude Code, Codex and Gemini CLI read
// hookSpecificOutput; Copilot CLI a top-level additionalContext; Cursor additional_context.
type Output struct {
	HookSpecificOutput *SpecificOutput `json:"hookSpecificOutput,omitempty"`
	AdditionalContext  string          `json:"additionalContext,omitempty"`
	CursorContext      string          `json:"additional_context,omitempty"`
}

// SpecificOutput carries context for SessionStart and UserPromptSubmit; both hosts accept
// exactly these keys (Codex rejects any other).
type SpecificOutput struct {
	HookEventName     string `json:"hookEventName"`
	AdditionalContext string `json:"additionalContext"`
}

// event is one hook invocation in progress.
type event struct {
	Payload
	harness  string // claude-code | codex
	repo     *gitstore.Repo
	cfg      config.Config
	log      *slog.Logger
	now      time.Time
	report   *report
	spawn    func(args ...string) // Options.Background
	answered func(func())         // Options.Answered, or doing at once
	ws       *workspace.Workspace // the session's directory, read once (see workspace())
	engine   *Engine              // Options.Engine
	mu       sync.Mutex
	later    [][]string      // background commands started as the hook ends (afterwards)
	handoff  handoff.Written // what a capture staged of the session's handoff
}

// report is what the hook did, kept in last-event.json for the status line and status.
type report struct {
	Event    string    `json:"event"`
	Harness  string    `json:"harness"`
	Session  string    `json:"session,omitempty"`
	At       time.Time `json:"at"`
	Millis   float64   `json:"ms"`
	Recalled int       `json:"recalled"`
	Queued   string    `json:"queued,omitempty"`  // entry id
	Learned  string    `json:"learned,omitempty"` // learning id
	Armed    bool      `json:"armed,omitempty"`   // correction watcher armed
	Skipped  string    `json:"skipped,omitempty"`
	Handoff  string    `json:"handoff,omitempty"` // the handoff written or injected, or why not
	Error    string    `json:"error,omitempty"`
	TimedOut bool      `json:"timed_out,omitempty"`
	// Late: a capture run again detached after its hook gave up (Options.Late); on a hook
	// that gave up, what it handed on: "handed to a background process".
	Late     string `json:"late,omitempty"`
	Resident bool   `json:"resident,omitempty"` // answered by a resident reflect-engine
}

// Run handles one hook invocation and never fails: every problem is logged, the process
// goes on to exit 0, and at most one JSON object reaches Stdout. The event's deadline counts
// from the moment Run starts, so reading and decoding stdin spend the same budget as the
// handler. What became of the work is returned for a caller that runs a capture again
// (`reflect internal late-hook`); a hook's process ignores it.
func Run(ctx context.Context, o Options) (oc Outcome) {
	if os.Getenv("REFLECT_INTERNAL") == "1" {
		return // reflect's own claude -p / codex exec: neither captured nor recalled
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	start := now()
	began := time.Now() // deadlines run on the real clock, whatever Now says
	if !o.Began.IsZero() {
		began = o.Began
		if o.Now == nil {
			start = o.Began
		}
	}
	debugf := func(format string, args ...any) {
		if o.Debug && o.Stderr != nil {
			fmt.Fprintf(o.Stderr, "reflect hook: "+format+"\n", args...)
		}
	}
	// stdin is read while the repository opens; a host that never closes it, or sends more
	// than maxPayload, costs no more than the longest deadline an event may have
	payload := readPayload(o.Stdin)
	r, openErr := gitstore.Open(o.Home)
	cfg := config.Default()
	abandoned := false // a handler left running past its deadline, still reading r
	if openErr == nil {
		cfg = r.Config()
		defer func() {
			if !abandoned {
				r.Close() // its pack files: a resident engine runs hook after hook
			}
		}()
	}
	logger := func() *slog.Logger {
		if openErr == nil {
			return openLogAt(filepath.Join(r.StateDir(), "log"), o.Resident)
		}
		return openLogAt(userLogDir(), o.Resident)
	}
	wait := max(cfg.Hooks.RecallTimeout.Std(), cfg.Hooks.CaptureTimeout.Std())
	var in stdin
	select {
	case in = <-payload:
	case <-time.After(time.Until(began.Add(wait))):
		debugf("stdin was not closed within %v; nothing done", wait)
		logger().Warn("hook skipped: stdin was not closed within the deadline", "harness", o.Harness, "deadline", wait)
		return
	}
	switch {
	case in.err != nil:
		debugf("read stdin: %v", in.err)
		logger().Warn("hook skipped: stdin could not be read", "harness", o.Harness, "err", in.err)
		return
	case in.over:
		debugf("payload of %d bytes is over %d; nothing done", in.size, maxPayload)
		logger().Warn("hook skipped: payload over the stdin bound", "harness", o.Harness, "bytes", in.size, "bound", maxPayload)
		return
	}
	p, err := decodeFor(o.Harness, o.Event, in.data)
	if err != nil {
		debugf("%v", err)
		return
	}
	if p.Host == "" {
		p.Host = o.Harness
	}
	if openErr != nil {
		debugf("reflect is not initialised (%v); run `reflect init`", openErr)
		logger().Warn("hook skipped: reflect is not initialised; run `reflect init`",
			"event", p.Event, "harness", o.Harness, "home", o.Home, "err", openErr)
		return
	}
	log := logger() // a resident engine's opens the file for each line: it runs hook after hook
	if err := r.SettingsError(); err != nil {
		// a bad settings file must not cost the agent its memory: the defaults stand in
		log.Warn("settings do not load; the hook uses the defaults for that file", "err", err)
	}
	harness := harnessOf(p.Host)
	if p.Host != o.Harness && nativelyWired(p.Host, p.CWD) {
		// Cursor or Copilot CLI running a Claude Code entry while reflect's own hooks for it
		// are installed too: those answer, this one would do everything twice
		log.Debug("hook skipped: the host runs reflect's own hooks too", "host", p.Host, "entry", o.Harness, "event", p.Event)
		return
	}
	e := &event{Payload: p, harness: harness, repo: r, cfg: cfg, log: log, now: start,
		report: &report{Event: p.Event, Harness: harness, Session: p.SessionID, At: start.UTC(), Resident: o.Resident},
		spawn:  o.Background, engine: o.Engine, answered: o.Answered}
	if e.answered == nil {
		e.answered = func(f func()) { f() }
	}

	deadline := e.cfg.Hooks.CaptureTimeout.Std()
	if p.Event == "SessionStart" || p.Event == "UserPromptSubmit" {
		deadline = e.cfg.Hooks.RecallTimeout.Std()
	}
	if o.Late {
		deadline = LateDeadline
		e.report.Late = "run again after its hook gave up"
	}
	ctx, cancel := context.WithDeadline(ctx, began.Add(deadline))
	defer cancel()
	if o.Engine == nil && o.HandOff != nil && e.needsEngine() {
		err := e.handOff(ctx, o, in.data, began, deadline+grace)
		if !errors.Is(err, ErrNoEngine) {
			for _, args := range e.takeAfterwards() {
				e.background(args...)
			}
			return Outcome{Done: err == nil}
		}
		// reflect-engine is not installed: what this process can do (a prompt's "remember:",
		// a correction, a capture) is still done; nothing is recalled
		e.report.Error = err.Error()
		log.Error("hook: no recall", "event", p.Event, "harness", harness, "err", err)
	}
	type result struct {
		out *Output
		err error
	}
	// the report as it stands before the handler runs: a handler past its deadline, left
	// running, goes on writing e.report, so the hook then reports from this copy (what that
	// handler did is lost to last-event.json, not to git: a learning it committed is indexed
	// at the index's next open)
	base := *e.report
	done := make(chan result, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				done <- result{err: fmt.Errorf("panic: %v", v)}
			}
		}()
		out, err := e.dispatch(ctx)
		done <- result{out, err}
	}()
	var res result
	final := e.report
	select {
	case res = <-done:
	case <-time.After(time.Until(began.Add(deadline + grace))):
		res.err = fmt.Errorf("%s hook passed its %v deadline; gave up", p.Event, deadline)
		if o.Resident {
			// in a resident engine the work may not outlive its hook: the next hook changes
			// the process's environment and directory under it (a process of its own would
			// have been killed; the engine's watchdog ends work that never returns)
			<-done
		} else {
			final, abandoned = &base, true
			if !o.Late && e.capturing() {
				final.Late = e.runLate(o, in.data)
			}
		}
		final.TimedOut = true
	}
	if res.err != nil && !final.TimedOut && !o.Late && ctx.Err() != nil && e.capturing() {
		// the capture gave up at the deadline: the repository stayed locked (another write,
		// git), or a read ran long
		final.Late = e.runLate(o, in.data)
	}
	if res.err != nil {
		final.Error = res.err.Error()
		log.Error("hook failed", "event", p.Event, "harness", harness, "session", p.SessionID, "err", res.err)
	}
	oc = Outcome{Done: res.err == nil && !final.TimedOut}
	if res.out != nil && !final.TimedOut {
		if b, err := json.Marshal(res.out); err == nil {
			o.Stdout.Write(append(b, '\n'))
		}
	}
	final.Millis = float64(now().Sub(start).Microseconds()) / 1000
	if b, err := json.Marshal(final); err == nil {
		if err := r.WriteVolatileState("last-event.json", b); err != nil {
			log.Warn("write last-event.json", "err", err)
		}
	}
	log.Debug("hook done", "event", p.Event, "ms", final.Millis)
	for _, args := range e.takeAfterwards() {
		e.background(args...)
	}
	if final.Learned != "" && indexlayout.Exists(r) {
		e.background("internal", "after-write") // index the new learning, refill the pool
	} else if r.PoolLow() {
		e.background("internal", "fill-pool")
	}
	return oc
}

// capturing says whether the event commits a capture of the session, which a hook that gives
// up on it at its deadline hands to a process of its own (runLate) rather than lose: every
// later capture of the session would read as much and give up the same way.
func (e *event) capturing() bool {
	switch e.Event {
	case "PreCompact", "Stop", "SessionEnd":
		return e.SessionID != "" && e.spawn != nil
	}
	return false
}

// stdin is what a hook read of its standard input.
type stdin struct {
	data []byte
	size int64 // bytes read in all
	over bool  // more than maxPayload: data is nil
	err  error
}

// readPayload reads at most maxPayload bytes of r on its own goroutine. A longer input is
// still read to its end and thrown away, so that a host writing it does not get EPIPE (or
// SIGPIPE) for a hook that stopped listening.
func readPayload(r io.Reader) <-chan stdin {
	ch := make(chan stdin, 1)
	go func() {
		if r == nil {
			ch <- stdin{}
			return
		}
		data, err := io.ReadAll(io.LimitReader(r, maxPayload+1))
		in := stdin{data: data, size: int64(len(data)), err: err}
		if err == nil && len(data) > maxPayload {
			n, err := io.Copy(io.Discard, r)
			in = stdin{size: int64(len(data)) + n, over: true, err: err}
		}
		ch <- in
	}()
	return ch
}

// dispatch runs the handler of the event; events reflect does not handle are quiet no-ops.
func (e *event) dispatch(ctx context.Context) (*Output, error) {
	switch e.Event {
	case "PreCompact", "Stop", "SessionEnd":
		if e.Host == HostOpencode && e.SessionID != "" {
			e.mirrorOpencode(ctx)
		}
	}
	switch e.Event {
	case "SessionStart":
		// what a session start sets going besides its recall is worked out while recall runs:
		// reading the remote's setting, the teams' and the queue's folders was 0.2 ms of the
		// hook in a resident engine (a panic there costs none of them, as one in dispatch)
		besides := make(chan startBesides, 1)
		go func() {
			defer func() {
				if v := recover(); v != nil {
					e.log.Error("hook: what a session start starts besides", "panic", v)
					besides <- startBesides{}
				}
			}()
			besides <- e.startBesides()
		}()
		out, err := e.recall(ctx, "")
		// where the last session left off, put before what it taught; read after recall,
		// which reads the workspace while the index opens (handoffBlock reuses it)
		out = e.withHandoff(out, e.handoffBlock())
		b := <-besides
		if b.sync {
			e.background("sync", "--quiet", "--remote", e.cfg.Sync.Remote) // what other laptops learned
		}
		if b.teams {
			e.background("team", "sync", "--quiet") // what the teams merged; adding a team is the opt-in
		}
		if b.drain {
			e.background("drain") // turn earlier sessions into learnings, off the agent's path
		}
		if e.cfg.History.Watch > 0 {
			// the session's history importer, started here rather than by its first Stop:
			// starting a process costs ~0.5 ms, a seventh of a Stop hook, a fortieth of this one;
			// poked after recall, which an importer woken by the poke would compete with
			e.importHistory()
		}
		return out, err
	case "UserPromptSubmit":
		// recall first: it must not find the learning this very prompt may commit
		var out *Output
		var rerr error
		if e.promptRecall() {
			out, rerr = e.recall(ctx, e.Prompt)
		}
		if err := e.onPrompt(ctx); err != nil {
			return out, err
		}
		return out, rerr
	case "PostToolUse", "PostToolUseFailure":
		return nil, e.onToolResult()
	case "PreCompact":
		return nil, e.capture(ctx, queue.TriggerPreCompact)
	case "Stop":
		e.importHistory()
		return nil, e.capture(ctx, queue.TriggerStop)
	case "SessionEnd":
		return nil, e.capture(ctx, queue.TriggerSessionEnd)
	}
	return nil, nil
}

// needsEngine says whether this event needs what only reflect-engine links (Engine): the
// recall events (a prompt's only where the host injects what it prints) and opencode's
// captures, which read its sqlite database.
func (e *event) needsEngine() bool {
	switch e.Event {
	case "SessionStart":
		return true
	case "UserPromptSubmit":
		return e.promptRecall()
	case "PreCompact", "Stop", "SessionEnd":
		return e.Host == HostOpencode && e.SessionID != ""
	}
	return false
}

// ErrNoEngine is what Options.HandOff returns when reflect-engine could not be started (it
// is not installed beside reflect): the hook then does in this process what needs no engine.
var ErrNoEngine = errors.New("reflect-engine could not be started")

// handOff runs the event in reflect-engine (Options.HandOff) and prints what it printed
// when that is one JSON object and came before the deadline. The engine writes the event's
// log lines and last-event.json itself; a hand-off that fails (the engine crashed or was
// late) is logged and reported here, and the hook prints nothing. ErrNoEngine is returned
// to the caller, unreported.
func (e *event) handOff(ctx context.Context, o Options, payload []byte, began time.Time, wait time.Duration) error {
	type result struct {
		out []byte
		err error
	}
	done := make(chan result, 1)
	// the engine is killed at the deadline plus the grace, as this process gives up: its own
	// deadline counts from this hook's start too (Handed.Began: a resident engine's request,
	// a child's REFLECT_HOOK_BEGAN), and ends its work first
	hctx, cancel := context.WithDeadline(context.WithoutCancel(ctx), began.Add(wait))
	defer cancel()
	go func() {
		out, err := o.HandOff(hctx, Handed{Payload: payload, Began: began, Debug: o.Debug, StateDir: e.repo.StateDir(),
			Resident: e.cfg.Recall.Resident.Std(), Afterwards: e.afterwards})
		done <- result{out, err}
	}()
	var res result
	select {
	case res = <-done:
	case <-time.After(time.Until(began.Add(wait))):
		e.report.TimedOut = true
		res.err = fmt.Errorf("%s hook: reflect-engine passed the deadline; gave up", e.Event)
		if !o.Late && e.capturing() {
			// opencode's capture, which reads its database in the engine: the engine gives up
			// at the moment it is killed, so its own hand-off may never happen. This one may
			// come second; the capture run second then finds the session's marks up to date.
			e.report.Late = e.runLate(o, payload)
		}
	}
	if errors.Is(res.err, ErrNoEngine) {
		return res.err
	}
	out := bytes.TrimSpace(res.out)
	if res.err == nil && len(out) > 0 && (out[0] != '{' || !json.Valid(out)) {
		res.err = fmt.Errorf("%s hook: reflect-engine printed something other than one JSON object (%d bytes); dropped", e.Event, len(out))
	}
	if res.err == nil {
		if len(out) > 0 {
			o.Stdout.Write(append(out, '\n'))
		}
		return nil
	}
	e.report.Error = res.err.Error()
	e.log.Error("hook failed", "event", e.Event, "harness", e.harness, "session", e.SessionID, "err", res.err)
	e.report.Millis = float64(time.Since(began).Microseconds()) / 1000
	if b, err := json.Marshal(e.report); err == nil {
		if err := e.repo.WriteVolatileState("last-event.json", b); err != nil {
			e.log.Warn("write last-event.json", "err", err)
		}
	}
	return res.err
}

// startBesides is which background work a session start sets going besides its recall and
// history importer: a sync, a team sync, a drain. Working it out only reads (the repository's
// settings, the teams' and the queue's folders), nothing recall reads or writes.
type startBesides struct {
	sync, teams, drain bool
}

func (e *event) startBesides() startBesides {
	return startBesides{
		sync:  e.cfg.Sync.Auto && e.repo.Remote(e.cfg.Sync.Remote) != "",
		teams: len(team.Names(e.repo)) > 0,
		drain: e.queued() || LateSaved(e.repo) > 0,
	}
}

// importHistory has the session history archive the transcript as it grows, off the agent's
// path: the importer that watches the session imports the new turn when one does (a poke,
// package watch), else one is started, which then watches the session for history.watch. It
// is started once the hook's own work is done (afterwards), so that the engine's start-up does
// not compete with it for the machine's cores.
func (e *event) importHistory() {
	if e.TranscriptPath == "" {
		return
	}
	args := []string{"history", "import", "--transcript", e.TranscriptPath}
	if w := e.cfg.History.Watch.Std(); w > 0 {
		watched, err := historywatch.Poke(e.repo.StateDir(), e.TranscriptPath)
		if err != nil {
			e.log.Warn("history: poke the importer", "err", err)
		}
		if watched {
			return
		}
		args = append(args, "--watch", w.String())
	}
	e.afterwards(args...)
}

// afterwards starts `reflect ARGS…` detached as the hook ends, after last-event.json: a
// process spawned mid-hook (the Stop hook's history import, reflect-engine) started on the
// other core while the hook still worked, and bench -hooks measured the Stop hook at 1.4–1.5×
// the process start-up. What a handler asked for runs even when it then passed its deadline.
func (e *event) afterwards(args ...string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.later = append(e.later, args)
}

func (e *event) takeAfterwards() [][]string {
	e.mu.Lock()
	defer e.mu.Unlock()
	later := e.later
	e.later = nil
	return later
}
