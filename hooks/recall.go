package hooks

import (
	"context"
	"time"

	"github.com/reflect-memory/reflect/config"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/queue"
	"github.com/reflect-memory/reflect/workspace"
)

// Engine is what the recall events need and only reflect-engine links: the search index
// (bleve) and the recall over it, and opencode's session database (sqlite). Package
// hookengine provides it. The lean reflect has none: it hands the events that need it to
// reflect-engine (Options.HandOff: a resident one, else a child), so that the capture hooks never initialise a search
// engine (bleve's package init alone was 1.9 ms of every process, GODEBUG=inittrace=1).
type Engine struct {
	// StartSubjects is how many commit subjects a session start's recall draws on.
	StartSubjects int
	// Neutralise keeps a text from elsewhere (a handoff) from posing as the host's markup.
	Neutralise func(string) string
	// OthersMode is recall.from_others as it applies to a repository now (recall.OthersMode):
	// whether a handoff another author wrote may be injected.
	OthersMode func(repo *gitstore.Repo, mode string) string
	// Recall answers a SessionStart (Prompt "") or a UserPromptSubmit: the text to inject
	// ("" for nothing) and how many learnings it holds.
	Recall func(ctx context.Context, q RecallQuery) (text string, injected int, err error)
	// MirrorOpencode brings opencode session's mirror under stateDir up to date and returns
	// the transcript a capture reads.
	MirrorOpencode func(ctx context.Context, stateDir, session string) (string, error)
}

// RecallQuery is one recall event, as Engine.Recall reads it.
type RecallQuery struct {
	Repo    *gitstore.Repo
	Config  config.Config
	Harness string
	Session string
	Cwd     string
	Prompt  string // "" at a session start
	Now     time.Time
	// Workspace reads the session's directory (once per hook); Recall calls it while the
	// index opens.
	Workspace func() *workspace.Workspace
	// Background starts a detached reflect-engine on this repository (a stale index is
	// caught up off the agent's path).
	Background func(args ...string)
	// Answered takes what may wait until the hook has answered (Options.Answered, or doing it
	// at once): closing the index. Never nil.
	Answered func(func())
}

// recall answers SessionStart (prompt "") and UserPromptSubmit with the learnings worth
// injecting, as the hook's output (nil when nothing qualifies), through the engine.
func (e *event) recall(ctx context.Context, prompt string) (*Output, error) {
	if e.engine == nil || e.engine.Recall == nil {
		return nil, nil
	}
	text, n, err := e.engine.Recall(ctx, RecallQuery{Repo: e.repo, Config: e.cfg, Harness: e.harness,
		Session: e.SessionID, Cwd: e.CWD, Prompt: prompt, Now: e.now, Workspace: e.workspace, Background: e.background,
		Answered: e.answered})
	if err != nil {
		return nil, err
	}
	e.report.Recalled = n
	if text == "" {
		return nil, nil
	}
	return e.contextOutput(text), nil
}

// background starts a detached reflect on this repository, when the caller allows it.
func (e *event) background(args ...string) {
	if e.spawn != nil {
		e.spawn(append([]string{"--home", e.repo.Root()}, args...)...)
	}
}

// queued reports whether captures wait in the queue (failed ones do not count), as the
// work tree shows it.
func (e *event) queued() bool { return queue.Waiting(e.repo) }
