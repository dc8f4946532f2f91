package hooks

import (
	"context"
	"time"

	"github.com/reflect-memory/reflect/index"
	"github.com/reflect-memory/reflect/queue"
	"github.com/reflect-memory/reflect/recall"
	"github.com/reflect-memory/reflect/workspace"
)

// recall answers SessionStart (prompt "") and UserPromptSubmit with the learnings worth
// injecting, as the hook's output (nil when nothing qualifies). It never waits long: the
// index is opened with a short lock timeout, a missing index is scanned instead (and
// rebuilt in the background), and a stale one is caught up inline only when few
// learnings changed.
func (e *event) recall(ctx context.Context, prompt string) (*Output, error) {
	var topic *recall.Topic
	if prompt != "" {
		tp := recall.PromptTopic(prompt)
		if tp.Empty() {
			return nil, nil // "thanks", "go on": nothing to look for, no index to open
		}
		topic = &tp
	}
	deadline, ok := ctx.Deadline()
	budget := e.cfg.Hooks.RecallTimeout.Std()
	if ok {
		budget = time.Until(deadline)
	}
	// opening (and, at worst, scanning) may take most of the budget; searching and
	// rendering need the rest.
	openCtx, cancel := context.WithTimeout(ctx, budget*6/10)
	defer cancel()
	// the project's commits and files are read while the index opens: each is a few
	// milliseconds of a session start's files read
	read := make(chan *workspace.Workspace, 1)
	go func() { read <- e.workspace() }()
	ix, err := index.Open(openCtx, e.repo, index.Options{
		LockTimeout:  min(250*time.Millisecond, budget/4),
		CatchUpLimit: 500,
		NoBuild:      true,
	})
	ws := <-read
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	if !ix.Fresh {
		e.background("internal", "index")
	}
	res, err := recall.Recall(ctx, e.repo, ix, recall.Request{
		Harness: e.harness, Session: e.SessionID, Cwd: e.CWD, Prompt: prompt, Topic: topic, Now: e.now,
		Workspace: ws,
	})
	if err != nil {
		return nil, err
	}
	e.report.Recalled = len(res.Injected)
	if res.Text == "" {
		return nil, nil
	}
	return e.contextOutput(res.Text), nil
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
