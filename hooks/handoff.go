package hooks

import (
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/reflect-memory/reflect/config"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/handoff"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/transcript"
)

// stageHandoff is the capture's Also: the session's handoff, staged in the capture's own
// commit from the messages the capture read. A handoff that cannot be made is logged; the
// capture goes on without it.
func (e *event) stageHandoff(tx *gitstore.Tx, msgs []transcript.Message, host string) {
	e.handoff = handoff.Written{}
	if !e.cfg.Handoff.Enabled {
		return
	}
	ws := e.workspace()
	w, err := handoff.Stage(tx, msgs, handoff.Meta{Harness: e.harness, Session: e.SessionID, Machine: host,
		Project: e.project(), Branch: ws.Branch, Commit: ws.Head, CWD: e.CWD, Now: e.now,
		Written: func(path string, blob plumbing.Hash) bool { return handoff.WrittenHere(e.repo, path, blob) }})
	if err != nil {
		e.log.Warn("handoff not written", "session", e.SessionID, "err", err)
		return
	}
	e.handoff = w
}

// recordHandoff notes, after the capture's commit, that this machine wrote the handoff: a
// session start then says "written here" rather than walking history for its author.
func (e *event) recordHandoff() {
	if e.handoff.Path == "" {
		if e.handoff.Skipped != "" {
			e.report.Handoff = "skipped: " + e.handoff.Skipped
		}
		return
	}
	e.report.Handoff = e.handoff.Path
	if err := handoff.RecordWritten(e.repo, e.handoff.Path, e.handoff.Blob); err != nil {
		e.log.Warn("record the handoff written here", "err", err)
	}
}

// handoffBlock is what a session start injects before the recalled learnings: the last
// session's handoff in this project and branch, marked as a record of that session, with
// where it came from. A handoff another author wrote is injected only when recall.from_others
// lets learnings of other authors in unreviewed (all, or auto while the memory has no other
// author): a handoff is never reviewed.
func (e *event) handoffBlock() string {
	if !e.cfg.Handoff.Enabled {
		return ""
	}
	if e.engine == nil || e.engine.Neutralise == nil || e.engine.OthersMode == nil {
		// a handoff may come from elsewhere: never injected without recall's rules for other
		// authors and its neutralising of markup, which only reflect-engine links
		e.report.Handoff = "held back: reflect-engine is not there to vet it"
		return ""
	}
	ws := e.workspace()
	if ws.Project == "" || ws.Project == learnings.Global {
		return ""
	}
	f, why, err := handoff.Pick(e.repo, handoff.Start{Project: ws.Project, Branch: ws.Branch, Default: ws.DefaultBranch(),
		Session: e.SessionID, Source: e.Source, Now: e.now, MaxAge: e.cfg.Handoff.MaxAge.Std()})
	switch {
	case err != nil:
		e.log.Warn("handoff not read", "project", ws.Project, "err", err)
		return ""
	case f == nil:
		e.log.Debug("no handoff injected", "project", ws.Project, "branch", ws.Branch, "why", why)
		return ""
	case (f.Origin.Other || f.Origin.Unknown) && !e.trustsOthers(f.Origin):
		who := "by " + f.Origin.Author
		if f.Origin.Unknown {
			who = "of an origin not yet known"
		}
		e.report.Handoff = "held back: written " + who + " (recall.from_others)"
		return ""
	}
	e.report.Handoff = f.Path
	return handoff.Block(f, e.now, e.cfg.Handoff.MaxChars, e.engine.Neutralise)
}

// trustsOthers says whether a handoff not written by this user may be injected.
func (e *event) trustsOthers(o handoff.Origin) bool {
	mode := e.cfg.Recall.FromOthers
	if mode == config.FromOthersAuto && o.Other {
		return false // another author exists: auto holds back what nobody reviewed
	}
	return e.engine.OthersMode(e.repo, mode) == config.FromOthersAll
}

// withHandoff puts the handoff block before the recalled learnings, in the one output, in
// the host's own shape (contextOutput: Copilot CLI, Cursor and opencode read other keys).
func (e *event) withHandoff(out *Output, block string) *Output {
	if block == "" {
		return out
	}
	if recalled := out.context(); recalled != "" {
		block += "\n\n" + recalled
	}
	return e.contextOutput(block)
}

// context is the text an output injects, whichever host's key carries it.
func (o *Output) context() string {
	switch {
	case o == nil:
		return ""
	case o.HookSpecificOutput != nil:
		return o.HookSpecificOutput.AdditionalContext
	case o.AdditionalContext != "":
		return o.AdditionalContext
	}
	return o.CursorContext
}
