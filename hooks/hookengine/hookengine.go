// Package hookengine is the part of the hooks that only reflect-engine links (hooks.Engine):
// the recall of SessionStart and UserPromptSubmit over the search index (bleve), and the
// mirror of opencode's sessions (sqlite); and the sweep of the sessions' local state that the
// drain runs (SweepSessions). The lean reflect hands those events to
// reflect-engine whole, so that a capture hook's process never initialises either.
package hookengine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/reflect-memory/reflect/anchor"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/hooks"
	"github.com/reflect-memory/reflect/index"
	"github.com/reflect-memory/reflect/opencode"
	"github.com/reflect-memory/reflect/recall"
)

// New is the engine reflect-engine's hooks run with.
func New() *hooks.Engine {
	return &hooks.Engine{
		StartSubjects:  recall.StartSubjects,
		Neutralise:     recall.Neutralise,
		OthersMode:     recall.OthersMode,
		Recall:         answer,
		MirrorOpencode: mirrorOpencode,
	}
}

// answer is the recall of a hook. It never waits long: the index is opened with a short
// lock timeout, a missing index is scanned instead (and rebuilt in the background), and a
// stale one is caught up inline only when few learnings changed.
func answer(ctx context.Context, q hooks.RecallQuery) (string, int, error) {
	var topic *recall.Topic
	if q.Prompt != "" {
		tp := recall.PromptTopic(q.Prompt)
		if tp.Empty() {
			return "", 0, nil // "thanks", "go on": nothing to look for, no index to open
		}
		topic = &tp
	}
	deadline, ok := ctx.Deadline()
	budget := q.Config.Hooks.RecallTimeout.Std()
	if ok {
		budget = time.Until(deadline)
	}
	// opening (and, at worst, scanning) may take most of the budget; searching and
	// rendering need the rest.
	openCtx, cancel := context.WithTimeout(ctx, budget*6/10)
	defer cancel()
	// the project's commits and files are read while the index opens: each is a few
	// milliseconds of a session start's files read
	read := make(chan *recall.Workspace, 1)
	go func() { read <- q.Workspace() }()
	ix, err := index.Open(openCtx, q.Repo, index.Options{
		LockTimeout:  min(250*time.Millisecond, budget/4),
		CatchUpLimit: 500,
		NoBuild:      true,
	})
	ws := <-read
	if err != nil {
		return "", 0, err
	}
	// closing a bleve index stops its goroutines and unmaps its files: 0.2–0.3 ms of a hook
	// in a resident engine, which closes it once the hook has answered
	defer q.Answered(func() { ix.Close() })
	if !ix.Fresh && q.Background != nil {
		q.Background("internal", "index")
	}
	res, err := recall.Recall(ctx, q.Repo, ix, recall.Request{
		Harness: q.Harness, Session: q.Session, Cwd: q.Cwd, Prompt: q.Prompt, Topic: topic, Now: q.Now,
		Workspace: ws,
	})
	if err != nil {
		return "", 0, err
	}
	return res.Text, len(res.Injected), nil
}

// Warm runs recalls whose answers nobody reads, for no session (nothing is recorded), so
// that what a process does once — the index's first open, the tables built at first use, the
// pages of the code — is done before a resident engine's first hook rather than in it: a
// prompt's, and a session start's in the project a session started in last
// (anchor.Latest), the likeliest next one (another session there, or the same session started
// again by /clear, a compaction or a resume), whose latest commits and topics the engine then
// holds (reading them was 0.7–1.5 ms of a session start). It returns what it ran.
func Warm(ctx context.Context, r *gitstore.Repo) []string {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	ix, err := index.Open(ctx, r, index.Options{LockTimeout: 100 * time.Millisecond, CatchUpLimit: 500, NoBuild: true})
	if err != nil {
		return nil
	}
	defer ix.Close()
	var ran []string
	const prompt = "why does the build fail after the database migration"
	tp := recall.PromptTopic(prompt)
	if _, err := recall.Recall(ctx, r, ix, recall.Request{Harness: "claude-code", Prompt: prompt, Topic: &tp, Now: time.Now(), DryRun: true}); err == nil {
		ran = append(ran, "prompt")
	}
	if ws, ok := anchor.Latest(r); ok {
		if _, err := recall.Recall(ctx, r, ix, recall.Request{Harness: "claude-code", Cwd: ws.Root, Now: time.Now(), DryRun: true}); err == nil {
			ran = append(ran, "start "+ws.Root)
		}
	}
	return ran
}

// mirrorOpencode brings the session's mirror (package opencode) up to date and returns it:
// opencode keeps its sessions in a database, not a file.
func mirrorOpencode(ctx context.Context, stateDir, session string) (string, error) {
	return opencode.MirrorSession(ctx, opencode.DBPath(), opencode.StorageDir(), filepath.Join(stateDir, "opencode"), session)
}

// SweepSessions removes what sessions left on this machine longer ago than recall.SeenKept:
// the lists of what recall gave each, the correction watchers' state, and the payload of a
// capture handed on at its hook's deadline that no late-hook ever read. A hook never
// removes them as its session ends (it may be resumed); the drain calls this, off the
// agent's path. It is here, not in hooks, because recall links bleve, which the lean reflect
// does not (TestLean). The capture marks (state/sessions) stay: without its mark a session
// resumed later would be captured again from its start.
func SweepSessions(r *gitstore.Repo, now time.Time) (int, error) {
	n := 0
	var errs []error
	for _, dir := range []string{recall.SeenDir, hooks.WatchDir, hooks.LateDir} {
		k, err := r.SweepState(dir, now.Add(-recall.SeenKept))
		n += k
		if err != nil {
			errs = append(errs, fmt.Errorf("sweep %s: %w", dir, err))
		}
	}
	return n, errors.Join(errs...)
}
